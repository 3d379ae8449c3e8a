#!/bin/sh
# Buildroot post-build script of the uaccess-lab image.
#   post-build.sh TARGET_DIR [JOB_DIR]
#
# 1. Every program in the image is static (init and the workloads are
#    linked with -static), but Buildroot installs glibc's shared libraries
#    with any glibc toolchain: BR2_STATIC_LIBS needs a non-glibc C library
#    and is dropped silently. Nothing here can load them, so they go, and
#    then no ELF file left in the image may ask for a program interpreter.
# 2. With JOB_DIR (run.py build-image --builder buildroot passes one), the
#    job's files replace the overlay's default job, as the offline
#    assembler does: etc/uaccess/job.conf and, for kernel-tree storms,
#    usr/share/uaccess/kernel-tree.paths. A previous job's files in a
#    reused output directory are removed first.
set -eu
target=$1
job=${2:-}

find "$target/lib" "$target/usr/lib" -maxdepth 2 \( -name '*.so' -o -name '*.so.*' \) \
	\( -type f -o -type l \) -exec rm -f {} + 2>/dev/null || true
# So does what came with them: glibc's NSS configuration and the
# multiarch links into the now empty library directories.
rm -f "$target/etc/nsswitch.conf"
for d in lib64 usr/lib64 lib32 usr/lib32 lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu \
	lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
	[ -L "$target/$d" ] && rm -f "$target/$d"
done
for d in lib usr/lib; do
	[ -d "$target/$d" ] && rmdir "$target/$d" 2>/dev/null || true
done

for f in $(find "$target" -type f); do
	if readelf -l "$f" 2>/dev/null | grep -q "program interpreter"; then
		echo "post-build.sh: $f is dynamically linked; the image keeps no shared libraries" >&2
		exit 1
	fi
done

if [ -n "$job" ]; then
	rm -f "$target/etc/uaccess/job.conf"
	rm -rf "$target/usr/share/uaccess"
	rmdir "$target/usr/share" 2>/dev/null || true
	cp -a "$job/." "$target/"
fi
