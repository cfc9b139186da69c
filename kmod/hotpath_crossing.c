// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath_crossing: seed 001's kernel side, measured properly.
 *
 * Per iteration the module opens a file with filp_open(), writes `count`
 * chunks of `chunk` zero bytes with kernel_write() and closes it, timed
 * with ktime_get_ns(). Files are confined to the directory given at load
 * time (parameter `dir`): the path is resolved by the kernel and checked
 * with path_is_under() before anything is created or truncated, and the
 * opened file is checked again after every open, so neither `..`, nor a
 * symlink, nor a rename in between can lead outside it.
 *
 * Interface (procfs, never the kernel log):
 *   /proc/hotpath_crossing/run      write "file=NAME chunk=B count=N iterations=I"
 *   /proc/hotpath_crossing/results  "# hotpath_crossing 1 ..." then "<index> <ns>"
 */

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define HP_NAME "hotpath_crossing"
#define HP_FORMAT 1
#define HP_MAX_CHUNK (1U << 20)
#define HP_MAX_COUNT (1U << 20)
#define HP_MAX_ITERATIONS 4096U
/* A request: four key=value words, the file name at most PATH_MAX. */
#define HP_MAX_REQUEST (PATH_MAX + 128)

static char *dir;
module_param(dir, charp, 0444);
MODULE_PARM_DESC(dir, "absolute directory the module may write in (required)");

static struct path dir_path;		/* dir, resolved at load; held until unload */
static struct proc_dir_entry *proc_root;
static DEFINE_MUTEX(hp_lock);		/* one run at a time; results stay whole */

/* The last successful run; iterations == 0 means none. */
static struct {
	char *file;
	unsigned int chunk;
	unsigned int count;
	unsigned int iterations;
	u64 *ns;
} last;

struct hp_request {
	char *file;			/* absolute, or relative to dir */
	unsigned int chunk;
	unsigned int count;
	unsigned int iterations;
};

static void hp_forget_last(void)
{
	kfree(last.file);
	kvfree(last.ns);
	memset(&last, 0, sizeof(last));
}

static int hp_parse_uint(const char *value, unsigned int min, unsigned int max,
			 unsigned int *out)
{
	unsigned int v;

	if (kstrtouint(value, 10, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Parse "file=NAME chunk=B count=N iterations=I" (any order, all required). */
static int hp_parse(char *text, struct hp_request *req)
{
	char *word, *value;
	int err = 0;

	memset(req, 0, sizeof(*req));
	while (!err && (word = strsep(&text, " \t\n")) != NULL) {
		if (!*word)
			continue;
		value = strchr(word, '=');
		if (!value)
			return -EINVAL;
		*value++ = '\0';
		if (!strcmp(word, "file") && *value)
			req->file = value;
		else if (!strcmp(word, "chunk"))
			err = hp_parse_uint(value, 1, HP_MAX_CHUNK, &req->chunk);
		else if (!strcmp(word, "count"))
			err = hp_parse_uint(value, 1, HP_MAX_COUNT, &req->count);
		else if (!strcmp(word, "iterations"))
			err = hp_parse_uint(value, 1, HP_MAX_ITERATIONS, &req->iterations);
		else
			return -EINVAL;
	}
	if (err || !req->file || !req->chunk || !req->count || !req->iterations)
		return -EINVAL;
	return 0;
}

/* NAME made absolute: as given when it starts with '/', else under dir. */
static char *hp_absolute(const char *name)
{
	if (name[0] == '/')
		return kstrdup(name, GFP_KERNEL);
	return kasprintf(GFP_KERNEL, "%s/%s", dir, name);
}

/*
 * Before anything is created or truncated: the directory that will hold the
 * file, resolved by the kernel (following `..` and symlinks), must lie under
 * dir; the last component must be a plain name and not a symlink (a symlink
 * could point out, or dangle and make O_CREAT create its target elsewhere).
 */
static int hp_check_target(const char *file)
{
	struct path parent, target;
	const char *base = strrchr(file, '/');
	char *parent_name;
	int err;

	base = base ? base + 1 : file;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EINVAL;
	parent_name = kstrndup(file, base - file, GFP_KERNEL);
	if (!parent_name)
		return -ENOMEM;
	err = kern_path(parent_name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &parent);
	kfree(parent_name);
	if (err)
		return err;
	if (!path_is_under(&parent, &dir_path))
		err = -EACCES;
	path_put(&parent);
	if (err)
		return err;

	err = kern_path(file, 0, &target);	/* no LOOKUP_FOLLOW: see the link itself */
	if (err == -ENOENT)
		return 0;			/* created inside the checked parent */
	if (err)
		return err;
	if (d_is_symlink(target.dentry))
		err = -EACCES;
	else if (!d_is_reg(target.dentry))
		err = -EINVAL;
	path_put(&target);
	return err;
}

/* Write count chunks from buf; the kernel's error, or -EIO on a short write. */
static int hp_write_all(struct file *filp, const void *buf, const struct hp_request *req)
{
	loff_t pos = 0;
	unsigned int i;
	ssize_t done;

	for (i = 0; i < req->count; i++) {
		done = kernel_write(filp, buf, req->chunk, &pos);
		if (done < 0)
			return done;
		if (done != req->chunk)
			return -EIO;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

/* One timed iteration: open (truncating), count writes, close. */
static int hp_iteration(const char *file, const void *buf, const struct hp_request *req,
			u64 *ns)
{
	struct file *filp;
	u64 start, opened;
	int err;

	start = ktime_get_ns();
	filp = filp_open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_LARGEFILE, 0644);
	opened = ktime_get_ns();
	if (IS_ERR(filp))
		return PTR_ERR(filp);
	/* Not timed: what was opened is still under dir (a rename since the check?). */
	if (!path_is_under(&filp->f_path, &dir_path)) {
		filp_close(filp, NULL);
		return -EACCES;
	}
	start -= ktime_get_ns() - opened;	/* leave the check's time out */
	err = hp_write_all(filp, buf, req);
	filp_close(filp, NULL);
	*ns = ktime_get_ns() - start;
	return err;
}

static int hp_run(const struct hp_request *req)
{
	char *file;
	void *buf;
	u64 *ns;
	unsigned int i;
	int err;

	file = hp_absolute(req->file);
	if (!file)
		return -ENOMEM;
	err = hp_check_target(file);
	if (err)
		goto out_file;
	buf = kvzalloc(req->chunk, GFP_KERNEL);
	ns = kvcalloc(req->iterations, sizeof(*ns), GFP_KERNEL);
	if (!buf || !ns) {
		err = -ENOMEM;
		goto out_buffers;
	}
	for (i = 0; i < req->iterations && !err; i++)
		err = hp_iteration(file, buf, req, &ns[i]);
	if (err)
		goto out_buffers;

	hp_forget_last();
	last.file = file;
	last.chunk = req->chunk;
	last.count = req->count;
	last.iterations = req->iterations;
	last.ns = ns;
	kvfree(buf);
	return 0;

out_buffers:
	kvfree(ns);
	kvfree(buf);
out_file:
	kfree(file);
	return err;
}

static ssize_t hp_run_write(struct file *unused, const char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct hp_request req;
	char *text;
	int err;

	if (len == 0 || len > HP_MAX_REQUEST)
		return -EINVAL;
	text = memdup_user_nul(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	err = hp_parse(text, &req);
	if (!err) {
		err = mutex_lock_interruptible(&hp_lock);
		if (!err) {
			hp_forget_last();	/* a failed run leaves "none", never stale figures */
			err = hp_run(&req);
			mutex_unlock(&hp_lock);
		}
	}
	kfree(text);
	return err ? err : len;
}

static int hp_results_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	mutex_lock(&hp_lock);
	if (!last.iterations) {
		seq_printf(m, "# %s %d none\n", HP_NAME, HP_FORMAT);
	} else {
		seq_printf(m, "# %s %d file=%s chunk=%u count=%u iterations=%u bytes_per_iteration=%llu\n",
			   HP_NAME, HP_FORMAT, last.file, last.chunk, last.count, last.iterations,
			   (unsigned long long)last.chunk * last.count);
		for (i = 0; i < last.iterations; i++)
			seq_printf(m, "%u %llu\n", i, (unsigned long long)last.ns[i]);
	}
	mutex_unlock(&hp_lock);
	return 0;
}

static int hp_results_open(struct inode *inode, struct file *file)
{
	/* 4096 lines of about 20 bytes: size the buffer once, not by retrying. */
	return single_open_size(file, hp_results_show, NULL, 128 + HP_MAX_ITERATIONS * 24);
}

static const struct proc_ops hp_run_ops = {
	.proc_write = hp_run_write,
	.proc_lseek = noop_llseek,
};

static const struct proc_ops hp_results_ops = {
	.proc_open = hp_results_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

static int __init hp_init(void)
{
	int err;

	if (!dir || dir[0] != '/') {
		pr_err(HP_NAME ": dir= must be an absolute directory\n");
		return -EINVAL;
	}
	err = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &dir_path);
	if (err) {
		pr_err(HP_NAME ": dir=%s: not a directory (%d)\n", dir, err);
		return err;
	}
	proc_root = proc_mkdir(HP_NAME, NULL);
	if (!proc_root ||
	    !proc_create("run", 0200, proc_root, &hp_run_ops) ||
	    !proc_create("results", 0444, proc_root, &hp_results_ops)) {
		remove_proc_subtree(HP_NAME, NULL);
		path_put(&dir_path);
		return -ENOMEM;
	}
	return 0;
}

static void __exit hp_exit(void)
{
	remove_proc_subtree(HP_NAME, NULL);	/* waits for readers and writers to leave */
	hp_forget_last();
	path_put(&dir_path);
}

module_init(hp_init);
module_exit(hp_exit);
MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("hotpath crossing lab: timed filp_open + kernel_write, confined to a directory");
