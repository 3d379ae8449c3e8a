/*
 * readlink-loop - readlink() on one symlink, `iterations` times. The path
 * is read from user memory and the target copied back to it.
 *
 * fs=tmpfs (the default): a 24-byte link the workload makes in /tmp.
 * fs=ext4: the 2024 thread's call (002_8589ed682b9581aa: readlink of
 * /initrd.img on ext4). The image carries an ext4 filesystem as a file,
 * /ext4.img (buildroot/assemble.py), whose root holds initrd.img ->
 * boot/initrd.img-6.1.0-37-amd64, a Debian 12 link of the same length (a
 * 30-byte fast symlink, kept in the inode); the workload attaches it to
 * /dev/loop0, mounts it read-only and chroots into it, so the call walks
 * the very path the thread's did. The kernel needs the ext4 layer
 * (kernels/layers/ext4), which the host adds for this mode.
 *
 * Job keys: fs (tmpfs); and the harness's (microbench.h): iterations
 * (100000), warmup (1000), detailed_warmup (0), settle_ms (50).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define BENCH_NAME "readlink-loop"
#define BENCH_SUBJECT const char *	/* the link's path */
#include "microbench.h"

#define LINK "/tmp/rl-link"
/* The target need not exist: readlink never follows it. */
#define LINK_TARGET "uaccess-readlink-target0"
_Static_assert(sizeof(LINK_TARGET) - 1 == 24, "target must be 24 bytes");

/* fs=ext4: what buildroot/assemble.py puts in /ext4.img (the two must agree). */
#define EXT4_IMAGE "/ext4.img"
#define EXT4_LOOP "/dev/loop0"
#define EXT4_MOUNT "/mnt/ext4"
#define EXT4_LINK "/initrd.img"
#define EXT4_TARGET "boot/initrd.img-6.1.0-37-amd64"
_Static_assert(sizeof(EXT4_TARGET) - 1 == 30, "Debian 12's link is 30 bytes");

static int fail(const char *what, const char *path)
{
	fprintf(stderr, BENCH_NAME ": %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

/* Replace a leftover link from an earlier run. */
static int make_tmpfs_link(void)
{
	if ((unlink(LINK) != 0 && errno != ENOENT) ||
	    symlink(LINK_TARGET, LINK) != 0)
		return fail("cannot create", LINK);
	return 0;
}

/*
 * The image's ext4 filesystem on a read-only loop device, mounted and made
 * the root; then the link must read back as the image wrote it, or the
 * ROI would time something else.
 */
static int enter_ext4(void)
{
	char buf[PATH_MAX];
	ssize_t len;
	int img, loop;

	img = open(EXT4_IMAGE, O_RDONLY | O_CLOEXEC);
	if (img < 0)
		return fail("cannot open", EXT4_IMAGE);
	loop = open(EXT4_LOOP, O_RDONLY | O_CLOEXEC);
	if (loop < 0)
		return fail("cannot open (kernel without the ext4 layer?)", EXT4_LOOP);
	if (ioctl(loop, LOOP_SET_FD, img) != 0)
		return fail("cannot attach " EXT4_IMAGE " to", EXT4_LOOP);
	close(img);
	if ((mkdir("/mnt", 0755) != 0 && errno != EEXIST) ||
	    (mkdir(EXT4_MOUNT, 0755) != 0 && errno != EEXIST))
		return fail("cannot make", EXT4_MOUNT);
	if (mount(EXT4_LOOP, EXT4_MOUNT, "ext4", MS_RDONLY, NULL) != 0)
		return fail("cannot mount ext4 on", EXT4_MOUNT);
	if (chroot(EXT4_MOUNT) != 0 || chdir("/") != 0)
		return fail("cannot chroot into", EXT4_MOUNT);
	len = readlink(EXT4_LINK, buf, sizeof(buf));
	if (len != (ssize_t)strlen(EXT4_TARGET) ||
	    memcmp(buf, EXT4_TARGET, len) != 0) {
		fprintf(stderr, BENCH_NAME ": %s does not read back as %s\n",
			EXT4_LINK, EXT4_TARGET);
		return 1;
	}
	return 0;
}

/* The link the calls read: tmpfs's, made here, or the image's ext4 one. */
static int bench_setup(struct bench *b)
{
	const char *fs = job_str("fs", "tmpfs");

	if (strcmp(fs, "ext4") == 0) {
		b->subject[0] = EXT4_LINK;
		return enter_ext4();
	}
	if (strcmp(fs, "tmpfs") == 0) {
		b->subject[0] = LINK;
		return make_tmpfs_link();
	}
	fprintf(stderr, BENCH_NAME ": fs must be tmpfs or ext4, not %s\n", fs);
	return JOBCONF_EXIT_BAD;
}

static inline void bench_op(const char *link, struct result *r)
{
	char buf[PATH_MAX];
	ssize_t len = readlink(link, buf, sizeof(buf));

	if (len >= 0)
		result_hash_readlink(r, len, buf);
	else
		result_error(r, "readlink", link, errno);
}
