// SPDX-License-Identifier: GPL-2.0
/*
 * vt_stall: the test suite's own module, never part of the series.  It holds
 * up one call of a chosen kernel function, for a chosen inode, for a chosen
 * time, then lets the call go on: a race window opened on purpose, so that a
 * race test fails on a kernel without its fix instead of passing by luck.
 *
 *   insmod vt_stall.ko func=NAME [arg=N]
 *
 * puts a kprobe on NAME, whose argument N (1 to 6, default 1) is a struct
 * inode pointer.  In /sys/module/vt_stall/parameters/, ms (how long), dev
 * and ino (the inode, as stat() reports st_dev and st_ino), written in that
 * order, arm it: the next call of NAME for that inode sleeps ms
 * milliseconds, then runs; ino goes back to 0 and hits counts the calls held
 * up.
 *
 * A kprobe's handlers cannot sleep: the pre-handler points the call at
 * vt_detour() instead, which sleeps, then calls NAME again with the same
 * arguments and lets that call through.  NAME must take at most six
 * arguments, all in registers; x86-64 only.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>

static char *func;
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the function whose call is held up");

static unsigned int arg = 1;
module_param(arg, uint, 0444);
MODULE_PARM_DESC(arg, "which argument of func (1-6) is the struct inode *");

static unsigned int ms;
module_param(ms, uint, 0644);
MODULE_PARM_DESC(ms, "how long the call is held up, in milliseconds");

static unsigned int dev;
module_param(dev, uint, 0644);
MODULE_PARM_DESC(dev, "st_dev of the inode");

static unsigned long ino;
module_param(ino, ulong, 0644);
MODULE_PARM_DESC(ino, "st_ino of the inode; writing it arms, 0 disarms");

static unsigned int hits;
module_param(hits, uint, 0444);
MODULE_PARM_DESC(hits, "the calls held up so far");

/* The task whose next call of func goes through: vt_detour()'s own */
static struct task_struct *vt_passing;

typedef unsigned long (*vt_fn6)(unsigned long, unsigned long, unsigned long,
				unsigned long, unsigned long, unsigned long);

static struct kprobe vt_kp;

static unsigned long vt_detour(unsigned long a1, unsigned long a2,
			       unsigned long a3, unsigned long a4,
			       unsigned long a5, unsigned long a6)
{
	msleep(READ_ONCE(ms));
	WRITE_ONCE(vt_passing, current);
	return ((vt_fn6)vt_kp.addr)(a1, a2, a3, a4, a5, a6);
}

static int vt_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long want = READ_ONCE(ino);
	struct inode *inode;

	if (current == READ_ONCE(vt_passing)) {
		WRITE_ONCE(vt_passing, NULL);
		return 0;
	}
	if (!want)
		return 0;
	inode = (struct inode *)regs_get_kernel_argument(regs, arg - 1);
	if (!inode || inode->i_ino != want ||
	    new_encode_dev(inode->i_sb->s_dev) != READ_ONCE(dev))
		return 0;
	/* Only the first call for the inode */
	if (cmpxchg(&ino, want, 0) != want)
		return 0;
	WRITE_ONCE(hits, hits + 1);
	regs->ip = (unsigned long)vt_detour;
	return 1;
}

/* A probe with a post-handler is never optimized: an optimized one ignores
 * the new regs->ip */
static void vt_post(struct kprobe *p, struct pt_regs *regs,
		    unsigned long flags)
{
}

static int __init vt_stall_init(void)
{
	int err;

	if (!func || arg < 1 || arg > 6)
		return -EINVAL;
	vt_kp.symbol_name = func;
	vt_kp.pre_handler = vt_pre;
	vt_kp.post_handler = vt_post;
	err = register_kprobe(&vt_kp);
	if (err)
		pr_err("vt_stall: cannot probe %s: %d\n", func, err);
	return err;
}

static void __exit vt_stall_exit(void)
{
	unregister_kprobe(&vt_kp);
}

module_init(vt_stall_init);
module_exit(vt_stall_exit);
MODULE_DESCRIPTION("Holds up one call of a function for an inode (fs-verity test suite)");
MODULE_LICENSE("GPL");
