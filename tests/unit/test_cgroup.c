// SPDX-License-Identifier: MIT
/*
 * Unit tests: the cgroup module against a cgroup2 tree built here (the test
 * override), and the ceilings' option syntax.
 */
#include "unit.h"

#include <sys/stat.h>

#include "cgroup/cgroup.h"
#include "cli/args.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_fake_tree(void **state)
{
	char dir[PATH_MAX / 2], child[PATH_MAX];
	struct cg_host h;
	struct cg_run r;
	struct cg_stats st;
	struct iso_err e = { 0 };
	struct stat sb;

	assert_int_equal(unit_mkdtemp(dir, sizeof(dir), "cgroup-XXXXXX"), 0);
	put(dir, "cgroup.procs", "");
	put(dir, "cgroup.controllers", "cpu memory\n");
	put(dir, "cgroup.subtree_control", "cpu\n");
	put(dir, "cgroup.events", "populated 0\nfrozen 0\n");
	put(dir, "cpu.stat", "usage_usec 99\nuser_usec 90\nsystem_usec 9\n");
	put(dir, "memory.events", "low 0\noom 1\noom_kill 3\n");
	put(dir, "memory.peak", "4096\n");
	setenv(CG_TEST_ROOT_ENV, dir, 1);
	cg_host_probe(&h);
	assert_true(h.usable);
	assert_true(h.fake);
	assert_int_equal(h.offered, CG_CPU | CG_MEMORY);
	assert_int_equal(h.enabled, CG_CPU);
	/* pids is not offered: the cause and the file that says so */
	assert_true(cg_host_enable(&h, CG_PIDS, &e) < 0);
	assert_int_equal(e.cause, CG_NO_CONTROLLER);
	assert_non_null(strstr(e.msg, "the pids controller is not enabled in the parent"));
	assert_int_equal(cg_run_create(&r, &h, "isorun-x", &e), 0);
	/* a file the tree does not have (a ceiling's) is made by its write, whole */
	assert_int_equal(cg_run_write(&r, "memory.max", "1048576", &e), 0);
	assert_int_equal(cg_run_write(&r, "io.max", "8:0 wbps=1048576", &e), 0);
	assert_int_equal(cg_run_write(&r, "io.max", "8:0 wbps=2", &e), 0);
	assert_int_equal(cg_run_keyed(&r, "io.max", "8:0"), -1);
	snprintf(child, sizeof(child), "%s/isorun-x/io.max", dir);
	assert_int_equal(stat(child, &sb), 0);
	assert_int_equal(sb.st_size, strlen("8:0 wbps=2"));
	/* any counter of a flat-keyed file the tree handed down, by its key */
	assert_int_equal(cg_run_keyed(&r, "memory.events", "oom"), 1);
	assert_int_equal(cg_run_keyed(&r, "memory.events", "oom_kill"), 3);
	assert_int_equal(cg_run_keyed(&r, "memory.events", "oom_group_kill"), -1);
	assert_int_equal(cg_run_keyed(&r, "pids.events", "max"), -1);
	assert_int_equal(cg_run_populated(&r), 0);
	/* read through the open events file, again and again; nothing marks a test's file */
	snprintf(child, sizeof(child), "%s/isorun-x", dir);
	put(child, "cgroup.events", "populated 1\nfrozen 0\n");
	assert_int_equal(cg_run_populated(&r), 1);
	assert_int_equal(cg_run_on_event(&r), 1);
	assert_int_equal(cg_run_watch_fd(&r), -1);
	assert_int_equal(cg_run_wait_empty(&r, 0), 0);
	put(child, "cgroup.events", "populated 0\nfrozen 0\n");
	cg_run_stats(&r, &st);
	assert_true(st.have_cpu);
	assert_int_equal(st.cpu_usage_us, 99);
	assert_int_equal(st.memory_peak, 4096);
	assert_int_equal(st.oom_kill, 3);
	assert_int_equal(st.pids_peak, -1);
	snprintf(child, sizeof(child), "%s/isorun-x", dir);
	assert_int_equal(cg_run_remove(&r, &e), 0);
	assert_int_equal(stat(child, &sb), -1);
	unsetenv(CG_TEST_ROOT_ENV);
	/* a record pointing outside the test tree is no cgroup */
	setenv(CG_TEST_ROOT_ENV, dir, 1);
	cg_host_probe(&h);
	assert_true(cg_run_open(&r, &h, "/etc", &e) < 0);
	cg_run_close(&r);
	unsetenv(CG_TEST_ROOT_ENV);
	for (const char *const *f =
		     (const char *const[]){ "cgroup.procs", "cgroup.controllers",
					    "cgroup.subtree_control", "cgroup.events", "cpu.stat",
					    "memory.events", "memory.peak", NULL };
	     *f; f++) {
		snprintf(child, sizeof(child), "%s/%s", dir, *f);
		assert_int_equal(unlink(child), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

static int parse(struct sup_opts *o, struct iso_err *e, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	sup_opts_init(o);
	memset(e, 0, sizeof(*e));
	return cli_parse_args(argc, argv, o, e);
}

/* A run cgroup named by a record the command could rewrite: every check refuses, never blocks. */
static void test_open_refuses(void **state)
{
	char dir[PATH_MAX / 2], sub[PATH_MAX], path[PATH_MAX + 16];
	struct cg_host h;
	struct cg_run r;
	struct iso_err e = { 0 };
	pid_t *pids = NULL;
	size_t n = 0;

	assert_int_equal(unit_mkdtemp(dir, sizeof(dir), "cgroup-XXXXXX"), 0);
	setenv(CG_TEST_ROOT_ENV, dir, 1);
	cg_host_probe(&h);
	/* a FIFO where the directory belongs: refused unopened (O_DIRECTORY) */
	snprintf(sub, sizeof(sub), "%s/isorun-fifo", dir);
	assert_int_equal(mkfifo(sub, 0600), 0);
	assert_int_equal(cg_run_open(&r, &h, sub, &e), -ENOTDIR);
	cg_run_close(&r);
	/* a symbolic link, and ".." on the way: the kernel's name for it is another */
	snprintf(path, sizeof(path), "%s/isorun-link", dir);
	assert_int_equal(symlink("/", path), 0);
	assert_true(cg_run_open(&r, &h, path, &e) < 0);
	cg_run_close(&r);
	snprintf(sub, sizeof(sub), "%s/isorun-x", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(path, sizeof(path), "%s/isorun-x/../isorun-x", dir);
	assert_true(cg_run_open(&r, &h, path, &e) < 0);
	assert_non_null(strstr(e.msg, "a symbolic link or \"..\" on the way"));
	cg_run_close(&r);
	/* cgroup.procs a FIFO, or not a list of pids: refused, not waited on */
	snprintf(path, sizeof(path), "%s/cgroup.procs", sub);
	assert_int_equal(mkfifo(path, 0600), 0);
	put(sub, "cgroup.events", "populated 1\n");
	assert_int_equal(cg_run_open(&r, &h, sub, &e), 0);
	assert_int_equal(cg_run_pids(&r, &pids, &n), -EINVAL);
	assert_int_equal(unlink(path), 0);
	put(sub, "cgroup.procs", "12\nnot a pid\n");
	assert_int_equal(cg_run_pids(&r, &pids, &n), -EINVAL);
	put(sub, "cgroup.procs", "12\n34\n");
	assert_int_equal(cg_run_pids(&r, &pids, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pids[1], 34);
	free(pids);
	cg_run_close(&r);
	unsetenv(CG_TEST_ROOT_ENV);
	/* the host's real mount: a directory elsewhere is not below it */
	cg_host_probe(&h);
	if (h.mount[0]) {
		assert_true(cg_run_open(&r, &h, sub, &e) < 0);
		assert_non_null(strstr(e.msg, "is not below the cgroup2 mount"));
		cg_run_close(&r);
	}
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/cgroup.events", sub);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(sub), 0);
	snprintf(path, sizeof(path), "%s/isorun-link", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/isorun-fifo", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_ceiling_options(void **state)
{
	/* sizes are whole numbers of a unit, as systemd's MemoryMax= without a percentage */
	char *bad[] = { "isorun", "--memory-max", "1.5G", "--", "true", NULL };
	char *good[] = { "isorun",	   "--memory-max=try:512M",
			 "--pids-max",	   "64",
			 "--cpu-max=150%", "--",
			 "true",	   NULL };
	struct sup_opts o;
	struct iso_err e;

	assert_true(parse(&o, &e, bad) < 0);
	assert_non_null(
		strstr(e.msg, "--memory-max: expected a size (512M, 2G), try:VALUE or none"));
	sup_opts_free(&o);
	assert_int_equal(parse(&o, &e, good), CLI_RUN);
	assert_true(o.ceilings[SUP_CEIL_MEMORY].set && o.ceilings[SUP_CEIL_MEMORY].try_);
	assert_int_equal(o.ceilings[SUP_CEIL_MEMORY].value, 512ull << 20);
	assert_false(o.ceilings[SUP_CEIL_PIDS].try_);
	assert_int_equal(o.ceilings[SUP_CEIL_PIDS].value, 64);
	assert_int_equal(o.ceilings[SUP_CEIL_CPU].value, 150);
	sup_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_tree),
		cmocka_unit_test(test_open_refuses),
		cmocka_unit_test(test_ceiling_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
