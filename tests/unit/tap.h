/*
 * A tiny TAP producer for the C unit tests, run by prove(1).
 *
 *   ok(cond, "name %d", i);  is_int(got, want, "name");  is_str(...);
 *   skip("reason");  return done_testing();
 */
#ifndef CORDON_TAP_H
#define CORDON_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failures;

static void tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static void tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_count++;
	if (!pass)
		tap_failures++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
}

static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
}

#define ok(cond, ...) tap_ok((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                           \
	do {                                                             \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		ok(g_ == w_, __VA_ARGS__);                               \
		if (g_ != w_)                                            \
			printf("#   got %lld, want %lld\n", g_, w_);     \
	} while (0)

#define is_str(got, want, ...)                                                  \
	do {                                                                    \
		const char *g_ = (got), *w_ = (want);                           \
		int same_ = (g_ == NULL && w_ == NULL) ||                       \
			    (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0);  \
		ok(same_, __VA_ARGS__);                                         \
		if (!same_)                                                     \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", \
			       w_ ? w_ : "(null)");                             \
	} while (0)

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* A test that cannot run here: reported as skipped, never as passed. */
static void skip(const char *why) __attribute__((unused));
static void skip(const char *why)
{
	tap_count++;
	printf("ok %d # SKIP %s\n", tap_count, why);
	fflush(stdout);
}

static int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

#endif
