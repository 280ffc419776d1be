/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of the fsverity utility and their shared helpers. */
#ifndef FSVERITY_COMMANDS_H
#define FSVERITY_COMMANDS_H

#include <getopt.h>
#include <stdlib.h>

/* Exit status for a bad command line; failures exit with EXIT_FAILURE. */
#define EXIT_USAGE	2

int cmd_setup(int argc, char *argv[]);
int cmd_enable(int argc, char *argv[]);
int cmd_measure(int argc, char *argv[]);

/*
 * getopt_long() over a subcommand's argv (argv[0] = its name), reporting
 * unknown options and missing arguments itself as one line.  Returns the
 * option's value, -1 at the end of the options, or '?' after an error.
 */
int next_option(int argc, char *argv[], const struct option *longopts);

/* Report a usage error of subcommand @cmd as one line. */
void usage_error(const char *cmd, const char *what);

#endif /* FSVERITY_COMMANDS_H */
