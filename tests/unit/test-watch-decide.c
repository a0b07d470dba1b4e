// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of src/replay/watch-decide.c: the rules that need no exec */
#include <sys/types.h>

#include "watch-decide.h"
#include "unit.h"

/* Interpreters waiting for their exec: a user's floods are bounded, root keeps its room. */
START_TEST(test_pending_room)
{
	uid_t uids[PENDING_MAX];
	size_t n = 0;

	/* one user fills their share, then is refused; another user is not */
	while (watch_decide_pending_room(uids, n, 1000))
		uids[n++] = 1000;
	ck_assert_uint_eq(n, PENDING_PER_USER);
	ck_assert(watch_decide_pending_room(uids, n, 1001));
	/* users together fill theirs (subordinate uids: many users) */
	for (uid_t u = 2000; watch_decide_pending_room(uids, n, u); u++)
		uids[n++] = u;
	ck_assert_uint_eq(n, PENDING_USERS);
	ck_assert(!watch_decide_pending_room(uids, n, 3000));
	/* a uid not known counts as a user */
	ck_assert(!watch_decide_pending_room(uids, n, (uid_t)-1));
	/* root's wait while the table has room, whatever the users did */
	while (watch_decide_pending_room(uids, n, 0))
		uids[n++] = 0;
	ck_assert_uint_eq(n, PENDING_MAX);
}
END_TEST

static Suite *watch_decide_suite(void)
{
	Suite *s = suite_create("watch-decide");
	TCase *tc = tcase_create("watch-decide");

	tcase_add_test(tc, test_pending_room);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(watch_decide_suite)
