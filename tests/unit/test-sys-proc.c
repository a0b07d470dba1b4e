// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/shared/sys-proc.c: what /proc tells of a process (real processes) */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys-proc.h"
#include "unit.h"

/* A child that, at each byte it reads: 'f' forks a task that waits, 'w' waits for it */
static pid_t commanded_child(int *ret_cmd, int *ret_ack)
{
	int cmd[2], ack[2];
	pid_t pid;

	ck_assert_int_eq(pipe(cmd), 0);
	ck_assert_int_eq(pipe(ack), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t grandchild = -1;
		char c;

		close(cmd[1]);
		close(ack[0]);
		while (read(cmd[0], &c, 1) == 1) {
			if (c == 'f' && (grandchild = fork()) == 0) {
				pause();
				_exit(0);
			}
			if (c == 'w' && grandchild > 0) {
				kill(grandchild, SIGKILL);
				waitpid(grandchild, NULL, 0);
			}
			if (write(ack[1], "k", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(cmd[0]);
	close(ack[1]);
	*ret_cmd = cmd[1];
	*ret_ack = ack[0];
	return pid;
}

static void command(int cmd, int ack, char c)
{
	ck_assert_int_eq(write(cmd, &c, 1), 1);
	ck_assert_int_eq(read(ack, &c, 1), 1);
}

START_TEST(test_started)
{
	unsigned threads = 0;
	bool reaped = true;
	int cmd, ack, kids[4];
	pid_t pid = commanded_child(&cmd, &ack);

	/* a process forked and running alone: one thread, no child waited for */
	ck_assert_int_eq(proc_started(pid, &threads, &reaped), 0);
	ck_assert_uint_eq(threads, 1);
	ck_assert(!reaped);
	ck_assert_int_eq(proc_children(pid, kids, 4), 0);
	command(cmd, ack, 'f');
	ck_assert_int_eq(proc_started(pid, &threads, &reaped), 0);
	ck_assert(!reaped);		/* a child alive: in task/PID/children, not waited for */
	ck_assert_int_eq(proc_children(pid, kids, 4), 1);
	ck_assert_int_gt(kids[0], 0);
	command(cmd, ack, 'w');
	ck_assert_int_eq(proc_started(pid, &threads, &reaped), 0);
	ck_assert(reaped);		/* a child waited for */
	ck_assert_int_eq(proc_children(pid, kids, 4), 0);
	close(cmd);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	close(ack);
	ck_assert_int_eq(proc_started(pid, &threads, &reaped), -ESRCH);
	ck_assert_int_eq(proc_children(pid, kids, 4), -ESRCH);
}
END_TEST

static Suite *proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("proc");

	tcase_add_test(tc, test_started);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(proc_suite)
