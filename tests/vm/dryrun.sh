#!/bin/sh
# Try the suite's shell logic on a development machine, outside the VM:
# mkfs, mount, umount, fsck and drop_caches are faked by shell functions
# and the "filesystems" are plain directories under a temporary directory
# (on whatever filesystem holds it), the "disks" plain files.  Nothing is
# formatted or mounted.  Without the fs-verity series in the running kernel
# most tests fail; what this shows is that the scripts run, parse their
# helpers' output and report failures with reasons.
#
#   sh tests/vm/dryrun.sh [FILTER]     (helpers and fsverity built first)
#   sh tests/vm/dryrun.sh --demo       the same for demo.sh (--bench: bench.sh)
set -u
script=run
case ${1:-} in
--demo)	script=demo.sh; shift ;;
--bench) script=bench.sh; shift ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/vtest-dry.XXXXXX)
chmod 755 "$tmp"
helpers=${HELPERS:-$here/helpers/build}
fsv=${FSVERITY_DIR:-$here/../../tools/build}
[ -x "$helpers/vioctl" ] || make -C "$here/helpers" -s O="$helpers" || exit 1
mkdir -p "$tmp/bin" "$tmp/mnt" "$tmp/mnt2"
[ -x "$fsv/fsverity" ] && ln -s "$fsv/fsverity" "$tmp/bin/fsverity"
: > "$tmp/disk1"
: > "$tmp/disk2"

# busybox applets first, as in the guest; then stubs for what must not run
mkdir -p "$tmp/bb" "$tmp/stub"
for a in $(busybox --list); do ln -s "$(command -v busybox)" "$tmp/bb/$a"; done
stub() { printf '#!/bin/sh\n%s\n' "$2" > "$tmp/stub/$1"; chmod +x "$tmp/stub/$1"; }
stub mkfs.ext4 'echo "dry run: mkfs.ext4 $*"'
stub mkfs.f2fs 'echo "dry run: mkfs.f2fs $*"'
stub e2fsck 'echo "dry run: e2fsck $*"'
stub fsck.f2fs 'echo "dry run: fsck.f2fs $*"'
# busybox ash runs its own applets (mount ...) whatever PATH says: shell
# functions, which win over applets, fake everything that would touch a
# disk or the mount table.
cat > "$tmp/overrides.sh" <<EOT
dry_dir() { case \$1 in $tmp/disk1) echo $tmp/mnt ;; *) echo $tmp/mnt2 ;; esac; }
fs_mkfs() { d=\$(dry_dir "\$1"); rm -rf "\$d"; mkdir -p "\$d"; }
mount() {
	case "\$*" in *remount*) return 0 ;; esac
	for a; do :; done
	mkdir -p "\$a" && touch "\$a/.dry-mounted"
}
umount() { rm -f "\$1/.dry-mounted"; }
losetup() { echo "dry run: no losetup"; return 1; }
is_mounted() { [ -e "\$1/.dry-mounted" ]; }
vt_disk_is_free() { return 0; }
drop_caches() { sync; }
vt_klog() { echo "dry run: kernel log: \$*"; }
vt_halt() { echo "dry run: the guest would end here"; exit 1; }
EOT
for f in mount umount losetup fs_mkfs; do
	"$tmp/bb/sh" -c ". $tmp/overrides.sh; type $f" | grep -q function ||
		{ echo "dryrun: cannot override $f, giving up"; exit 1; }
done

# vstress (t/70-stress.sh): a short run, without its drop_caches task
VSTRESS_NODROP=1 VSTRESS_SECONDS=${VSTRESS_SECONDS:-3} \
VT_STATE=$tmp/state VT_MNT=$tmp/mnt VT_MNT2=$tmp/mnt2 DEMO_MNT=$tmp/mnt \
VTEST_DISKS="$tmp/disk1 $tmp/disk2" VTEST_OVERRIDES=$tmp/overrides.sh \
VTEST_FILTER=${1:-} PATH="$helpers:$tmp/bin:$tmp/stub:$tmp/bb:$PATH" \
	"$tmp/bb/sh" "$here/$script"
rc=$?
chattr -R -a "$tmp" 2>/dev/null
rm -rf "$tmp"
exit $rc
