#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent reference for the 2018 fs-verity metadata format (Documentation/filesystems/fsverity.rst).

Written from the specification only, without looking at tools/, so that the
host tests compare the utility against a second implementation:

  reference.py build DATA --hash ALG [--salt HEX] [--signature SIG] --out META
      write the bytes 'fsverity setup' must append to DATA (padding, tree,
      descriptor, extensions, footer) to META; print "ALG:HEX" measurement
  reference.py extract-signature FILE
      parse the metadata at the end of a set-up FILE and write the payload
      of its PKCS7_SIGNATURE extension to stdout
  reference.py digest-disk ALG HEX
      write struct fsverity_digest_disk {le16 alg, le16 size, digest}
  reference.py selftest
      check CRC-32C against its standard check value
"""

import argparse
import hashlib
import struct
import sys

BLOCK_SIZE = 4096
PAGE_SIZE = 4096
MAGIC = b"FSVerity"

EXT_ROOT_HASH = 1
EXT_SALT = 2
EXT_PKCS7_SIGNATURE = 3


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC32C_TABLE = _crc32c_table()


class Crc32c:
    """hashlib-like CRC-32C: init ~0, final ~, digest 4 bytes little endian."""

    digest_size = 4

    def __init__(self, data=b""):
        self.crc = 0xFFFFFFFF
        self.update(data)

    def update(self, data):
        crc, table = self.crc, CRC32C_TABLE
        for b in data:
            crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
        self.crc = crc

    def copy(self):
        other = Crc32c()
        other.crc = self.crc
        return other

    def digest(self):
        return struct.pack("<I", self.crc ^ 0xFFFFFFFF)


ALGS = {
    # name: (number, constructor)
    "sha256": (1, hashlib.sha256),
    "sha512": (2, hashlib.sha512),
    "crc32c": (3, Crc32c),
}


class SaltedHash:
    """H(salt || block) with the salted state computed once."""

    def __init__(self, alg, salt):
        self.base = ALGS[alg][1]()
        self.base.update(salt)
        self.digest_size = self.base.digest_size
        self.zero_block = bytes(BLOCK_SIZE)
        self.zero_digest = self(self.zero_block)

    def __call__(self, block):
        h = self.base.copy()
        h.update(block)
        return h.digest()

    def block_digest(self, block):
        # Sparse files: most blocks are zeroes, hash those once.
        if block == self.zero_block:
            return self.zero_digest
        return self(block)


def pad_to(data, multiple):
    return data + bytes(-len(data) % multiple)


def data_block_hashes(path, hasher):
    hashes = []
    with open(path, "rb") as f:
        while True:
            block = f.read(BLOCK_SIZE)
            if not block:
                break
            hashes.append(hasher.block_digest(pad_to(block, BLOCK_SIZE)))
    return hashes


def merkle_tree(path, hasher):
    """Return (levels bottom-up as bytes, root hash)."""
    hashes = data_block_hashes(path, hasher)
    if not hashes:
        raise ValueError("empty file")
    if len(hashes) == 1:
        return [], hashes[0]
    levels = []
    while True:
        level = pad_to(b"".join(hashes), BLOCK_SIZE)
        levels.append(level)
        if len(level) == BLOCK_SIZE:
            return levels, hasher(level)
        hashes = [hasher.block_digest(level[i:i + BLOCK_SIZE])
                  for i in range(0, len(level), BLOCK_SIZE)]


def extension(ext_type, payload):
    item = struct.pack("<IHH", 8 + len(payload), ext_type, 0) + payload
    return pad_to(item, 8)


def descriptor(alg, data_size, auth_ext_count):
    return (MAGIC + struct.pack("<BBBBHHIIQH", 1, 0, 12, 12, ALGS[alg][0],
                                ALGS[alg][0], 0, 0, data_size,
                                auth_ext_count) + bytes(30))


def build(path, alg, salt, signature):
    hasher = SaltedHash(alg, salt)
    levels, root = merkle_tree(path, hasher)
    with open(path, "rb") as f:
        f.seek(0, 2)
        data_size = f.tell()

    auth = extension(EXT_ROOT_HASH, root)
    if salt:
        auth += extension(EXT_SALT, salt)
    authenticated = descriptor(alg, data_size, 2 if salt else 1) + auth
    measurement = ALGS[alg][1](authenticated).digest()

    unauth = struct.pack("<H", 1 if signature else 0) + bytes(6)
    if signature:
        unauth += extension(EXT_PKCS7_SIGNATURE, signature)

    padding = bytes(-data_size % BLOCK_SIZE)
    tree = b"".join(reversed(levels))            # root level first
    desc_pos = data_size + len(padding) + len(tree)
    region = authenticated + unauth
    footer_pos = desc_pos + len(region)
    if footer_pos // PAGE_SIZE != (footer_pos + 11) // PAGE_SIZE:
        region += bytes(-footer_pos % PAGE_SIZE)
    region += struct.pack("<I", len(region) + 12) + MAGIC
    return padding + tree + region, measurement


def parse_extensions(buf, pos, count, end):
    exts = []
    for _ in range(count):
        length, ext_type, reserved = struct.unpack_from("<IHH", buf, pos)
        if length < 8 or reserved or pos + length > end:
            raise ValueError("bad extension at %d" % pos)
        exts.append((ext_type, buf[pos + 8:pos + length]))
        pos += length + (-length % 8)
    return exts, pos


def extract_signature(path):
    with open(path, "rb") as f:
        buf = f.read()
    rev, magic = struct.unpack_from("<I8s", buf, len(buf) - 12)
    if magic != MAGIC:
        raise ValueError("no fs-verity footer")
    desc = len(buf) - rev
    if buf[desc:desc + 8] != MAGIC:
        raise ValueError("no descriptor at %d" % desc)
    end = len(buf) - 12
    (auth_count,) = struct.unpack_from("<H", buf, desc + 32)
    _, pos = parse_extensions(buf, desc + 64, auth_count, end)
    (unauth_count,) = struct.unpack_from("<H", buf, pos)
    unauth, _ = parse_extensions(buf, pos + 8, unauth_count, end)
    sigs = [payload for ext_type, payload in unauth
            if ext_type == EXT_PKCS7_SIGNATURE]
    if len(sigs) != 1:
        raise ValueError("%d signature extensions" % len(sigs))
    return sigs[0]


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("build")
    p.add_argument("data")
    p.add_argument("--hash", default="sha256", choices=sorted(ALGS))
    p.add_argument("--salt", default="")
    p.add_argument("--signature")
    p.add_argument("--out", required=True)
    p = sub.add_parser("extract-signature")
    p.add_argument("file")
    p = sub.add_parser("digest-disk")
    p.add_argument("alg", choices=sorted(ALGS))
    p.add_argument("hex")
    sub.add_parser("selftest")
    args = parser.parse_args()

    if args.cmd == "build":
        signature = b""
        if args.signature:
            with open(args.signature, "rb") as f:
                signature = f.read()
        meta, measurement = build(args.data, args.hash,
                                  bytes.fromhex(args.salt), signature)
        with open(args.out, "wb") as f:
            f.write(meta)
        print("%s:%s" % (args.hash, measurement.hex()))
    elif args.cmd == "extract-signature":
        sys.stdout.buffer.write(extract_signature(args.file))
    elif args.cmd == "digest-disk":
        digest = bytes.fromhex(args.hex)
        sys.stdout.buffer.write(struct.pack("<HH", ALGS[args.alg][0],
                                            len(digest)) + digest)
    else:
        check = Crc32c(b"123456789").digest()
        if check != struct.pack("<I", 0xE3069283):
            sys.exit("crc32c check value mismatch: %s" % check.hex())
        print("crc32c check value ok")


if __name__ == "__main__":
    main()
