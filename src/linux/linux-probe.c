/*
 * The probe's throw-away child (Linux). Whether a layer can be applied
 * is learned by applying it: a kernel may answer Landlock's version query
 * yet refuse the restriction (a container's seccomp filter returning
 * EPERM), refuse user namespaces, or refuse a seccomp filter. A run
 * learns it from its own first child, which applies every layer before
 * exec (backend-linux.c); this throw-away child, which tries every layer
 * and then exits, runs at most once per process: for cordon probe, or
 * after a run's child met a refusal. What the child needs is
 * made by the caller before it starts; the child only makes system calls
 * and writes its results into its copy of the input, which lives in a
 * MAP_SHARED mapping with its stack, so the results reach the caller
 * whether child_start shared memory (clone) or copied it (fork). A child
 * that does not end in time counts as blocked.
 *
 * A helper thread starts the child and reaps it. The child shares the
 * memory of the thread that clones it and runs with that thread's thread
 * pointer, so its failing system calls write that thread's errno: were
 * it cloned from the caller's thread, they could land between a failing
 * call of the caller's (a readlink in realpath) and its errno check, and
 * make that call fail (seen once in a few thousand runs). The helper
 * thread only reaps, which no errno value can mislead.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

/* How long the trial may take before it counts as blocked. */
#define TRIAL_TIMEOUT_MS 2000
/* The input and results at the low end of the area, the stack above. */
#define TRIAL_ARG_MAX 1024

static struct {
	pthread_mutex_t lock;
	int started, collected;
	int (*fn)(void *);
	void *area; /* [arg | stack], MAP_SHARED */
	size_t n;
	pthread_t thread;
	int have_thread;
	int timed_out; /* set by the thread: killed at the timeout */
	void *result; /* the child's copy of arg, kept after collection */
} trial = { PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, NULL, 0, 0, 0, 0, NULL };

static void *trial_thread(void *unused)
{
	(void)unused;
	int status = 0;
	long long t0 = monotonic_ms();
	pid_t pid = child_start(trial.fn, trial.area, (char *)trial.area + TRIAL_ARG_MAX,
				CHILD_STACK_SIZE - TRIAL_ARG_MAX, 0);
	/* Whether it ended well is for the caller to read in its results
	 * (the child marks how far it came); only a timeout is told here. */
	trial.timed_out = pid > 0 && reap_with_timeout(pid, &status, TRIAL_TIMEOUT_MS) != 0 &&
			  monotonic_ms() - t0 >= TRIAL_TIMEOUT_MS;
	return NULL;
}

void probe_trial_start(int (*fn)(void *), const void *arg, size_t n)
{
	int saved = errno;
	pthread_mutex_lock(&trial.lock);
	if (!trial.started && n <= TRIAL_ARG_MAX) {
		trial.started = 1;
		void *area = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (area != MAP_FAILED) {
			memcpy(area, arg, n);
			trial.area = area;
			trial.n = n;
			trial.fn = fn;
			/* The thread takes no signal meant for the caller. */
			sigset_t all, old;
			sigfillset(&all);
			pthread_sigmask(SIG_SETMASK, &all, &old);
			trial.have_thread =
				pthread_create(&trial.thread, NULL, trial_thread, NULL) == 0;
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		}
	}
	pthread_mutex_unlock(&trial.lock);
	errno = saved;
}

const void *probe_trial_collect(int *timed_out)
{
	pthread_mutex_lock(&trial.lock);
	if (!trial.collected && trial.area != NULL) {
		trial.collected = 1;
		if (trial.have_thread)
			(void)pthread_join(trial.thread, NULL);
		else
			(void)trial_thread(NULL); /* no thread to be had: here, waiting */
		/* Reaped: nobody runs on the stack now. */
		if ((trial.result = malloc(trial.n)) != NULL)
			memcpy(trial.result, trial.area, trial.n);
		(void)munmap(trial.area, CHILD_STACK_SIZE);
		trial.area = NULL;
	}
	*timed_out = trial.timed_out;
	pthread_mutex_unlock(&trial.lock);
	return trial.result;
}

#else
typedef int cordon_no_linux_probe_here;
#endif
