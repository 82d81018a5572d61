/*
 * Every failing call leaves its own message (never an empty or a stale
 * one), also when memory runs out, and the last error is per thread.
 *
 * Allocation failures are injected: this test is linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup, so every
 * allocation the library makes itself goes through the wrappers below,
 * which fail the Nth one. The whole life cycle runs once per N until a
 * run needs fewer allocations than N.
 */
#include "cordon.h"
#include "tap.h"
#include "fixture.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long fail_at = -1, count;

/* 1 when this allocation is the one to fail. (Threads: the library
 * allocates only in the caller's thread; the count is a plain one.) */
static int failing(void)
{
	return fail_at > 0 && __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED) == fail_at;
}

void *__wrap_malloc(size_t n)
{
	return failing() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return failing() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return failing() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return failing() ? NULL : __real_strdup(s);
}

static int bad; /* failures seen across all N, reported once */

/* A failed step must leave a message of its own: not empty, and not the
 * sentinel a deliberate failure left just before it. */
static void check_step(cordon *c, const char *step, int r, long n)
{
	if (r == 0)
		return;
	const char *m = cordon_last_error(c);
	if (r > 0 || m[0] == '\0' || strstr(m, "unknown mode 99") != NULL ||
	    strstr(m, "sentinel") != NULL) {
		if (bad++ < 10)
			diag("allocation %ld failed in %s: returned %d with message '%s'", n, step,
			     r, m);
	}
}

/* Leave a known message, so a failure that sets none is seen. */
static void sentinel(cordon *c, int begun)
{
	if (!begun)
		(void)cordon_set_mode(c, (enum cordon_mode)99);
	else
		(void)cordon_set_status_file(c, "sentinel");
}

/* One life cycle with allocation n failing; 1 when it needed fewer. */
static int life_cycle(long n)
{
	char path[400];
	fail_at = n;
	count = 0;
	cordon *c = cordon_new();
	if (c == NULL) {
		fail_at = -1;
		return 0; /* cordon_new may only fail by returning NULL */
	}
#define STEP(name, call, begun)                 \
	do {                                    \
		sentinel(c, begun);             \
		check_step(c, name, (call), n); \
	} while (0)
	STEP("set_workspace", cordon_set_workspace(c, ws), 0);
	STEP("add_allow_write", cordon_add_allow_write(c, outside), 0);
	STEP("add_env", cordon_add_env(c, "CORDON_TEST=1"), 0);
	STEP("add_env pass", cordon_add_env(c, "PATH"), 0);
	STEP("set_state_dir", cordon_set_state_dir(c, state), 0);
	snprintf(path, sizeof(path), "%s/status.jsonl", root);
	STEP("set_status_file", cordon_set_status_file(c, path), 0);
	STEP("set_mode", cordon_set_mode(c, CORDON_MODE_AUTO), 0);
	int r = cordon_begin(c);
	check_step(c, "begin", r, n);
	if (r == 0) {
		const char *argv[] = { "true", NULL };
		cordon_proc *p = NULL;
		struct cordon_result res;
		sentinel(c, 1);
		r = cordon_spawn(c, argv, &p);
		check_step(c, "spawn", r, n);
		if (r == 0) {
			sentinel(c, 1);
			check_step(c, "wait", cordon_wait(p, &res), n);
		}
		sentinel(c, 1);
		check_step(c, "end", cordon_end(c), n);
	}
	cordon_free(c);
	int done = count < n;
	fail_at = -1;
	return done;
}

struct thread_case {
	cordon *c;
	int mode;
	int same; /* the message read back is this thread's own */
};

static void *fail_in_thread(void *v)
{
	struct thread_case *t = v;
	char want[64];
	snprintf(want, sizeof(want), "unknown mode %d", t->mode);
	t->same = 1;
	for (int i = 0; i < 2000; i++) {
		(void)cordon_set_mode(t->c, (enum cordon_mode)t->mode);
		if (strcmp(cordon_last_error(t->c), want) != 0)
			t->same = 0;
	}
	return NULL;
}

int main(void)
{
	setup("/tmp/cordon-errors.XXXXXX");

	long n = 1;
	while (!life_cycle(n) && n < 5000)
		n++;
	ok(n < 5000, "every allocation of a life cycle failed once (%ld allocations)", n - 1);
	ok(bad == 0, "each failing call left a message of its own (%d did not)", bad);

	/* Two threads fail on one handle at once: each reads its own. */
	cordon *c = cordon_new();
	struct thread_case a = { c, 97, 0 }, b = { c, 98, 0 };
	pthread_t ta, tb;
	pthread_create(&ta, NULL, fail_in_thread, &a);
	pthread_create(&tb, NULL, fail_in_thread, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ok(a.same && b.same, "concurrent failures: each thread reads its own message");
	is_str(cordon_last_error(c), "", "a thread that had no failure reads \"\"");
	cordon_free(c);

	/* A new handle (perhaps at the same address) starts clean. */
	c = cordon_new();
	(void)cordon_set_mode(c, (enum cordon_mode)99);
	cordon_free(c);
	c = cordon_new();
	is_str(cordon_last_error(c), "", "a new handle has no message of an old one");
	cordon_free(c);

	teardown();
	return done_testing();
}
