// SPDX-License-Identifier: GPL-2.0
/*
 * fsverity - set up, enable and measure fs-verity files (2018 RFC format)
 *
 * Command-line compatible with the 2018 fsverity utility.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const char usage_text[] =
"Usage:\n"
"  fsverity setup INFILE [OUTFILE] [--hash=sha256|sha512|crc32c] [--salt=HEX]\n"
"                 [--blocksize=4096] [--signing-key=KEY.pem --signing-cert=CERT.pem]\n"
"                 [--signature=SIG.der] [--threads=N]\n"
"  fsverity enable FILE\n"
"  fsverity measure FILE...\n"
"\n"
"setup appends the Merkle tree and fs-verity metadata to INFILE (or writes\n"
"INFILE plus the metadata to OUTFILE) and prints the file measurement.\n"
"enable turns a set-up file into a verity file (FS_IOC_ENABLE_VERITY).\n"
"measure prints the measurement of verity files (FS_IOC_MEASURE_VERITY).\n";

static const struct {
	const char *name;
	int (*func)(int argc, char *argv[]);
} commands[] = {
	{ "setup", cmd_setup },
	{ "enable", cmd_enable },
	{ "measure", cmd_measure },
};

void usage_error(const char *cmd, const char *what)
{
	error_msg("%s%s%s (try 'fsverity --help')", cmd ? cmd : "",
		  cmd ? ": " : "", what);
}

int next_option(int argc, char *argv[], const struct option *longopts)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, ":", longopts, NULL);
	if (c == '?') {
		error_msg("%s: unknown option '%s' (try 'fsverity --help')",
			  argv[0], argv[optind - 1]);
	} else if (c == ':') {
		error_msg("%s: option '%s' needs an argument (try 'fsverity --help')",
			  argv[0], argv[optind - 1]);
		c = '?';
	}
	return c;
}

int main(int argc, char *argv[])
{
	size_t i;

	if (argc < 2) {
		usage_error(NULL, "missing command");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return EXIT_SUCCESS;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].func(argc - 1, argv + 1);
	error_msg("unknown command '%s' (try 'fsverity --help')", argv[1]);
	return EXIT_USAGE;
}
