/*
 * cordon changes | diff | apply | discard RUN_ID: a --review run's held
 * changes (the library's cordon_changes, cordon_diff, cordon_apply,
 * cordon_discard), and the line a --review run ends with.
 */
#include "args.h"
#include "cordon.h"
#include "runcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A path on one line: as is, or quoted with C escapes as git does. */
static void put_path(FILE *f, const char *p)
{
	int plain = 1;
	for (const unsigned char *s = (const unsigned char *)p; *s; s++)
		plain &= *s >= 0x20 && *s < 0x7f && *s != '"' && *s != '\\';
	if (plain) {
		fputs(p, f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *s = (const unsigned char *)p; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else if (*s < 0x20 || *s >= 0x7f)
			fprintf(f, "\\%03o", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int fail(cordon *c)
{
	fputs("cordon: ", stderr);
	put_path(stderr, cordon_last_error(c));
	fputc('\n', stderr);
	cordon_free(c);
	return CLI_EXIT_CORDON;
}

static int show_changes(cordon *c, const char *id)
{
	struct cordon_change *v;
	size_t n;
	char *ws;
	if (cordon_changes(c, id, &v, &n, &ws) != 0)
		return fail(c);
	printf("# workspace ");
	put_path(stdout, ws);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		printf("%-8s %10lld  ", v[i].kind, v[i].size);
		put_path(stdout, v[i].path);
		printf("\n");
	}
	cordon_changes_free(v, n);
	free(ws);
	cordon_free(c);
	return 0;
}

/* Each held change a guard refused, on stderr. */
static void list_refused(const cordon *c, const char *what)
{
	for (size_t i = 0; i < cordon_apply_refused_count(c); i++) {
		fprintf(stderr, "cordon: %s: ", what);
		put_path(stderr, cordon_apply_refused_path(c, i));
		fprintf(stderr, ": %s\n", cordon_apply_refused_reason(c, i));
	}
}

int cli_held(const struct cli_args *a)
{
	cordon *c = cordon_new();
	if (c == NULL) {
		fputs("cordon: out of memory\n", stderr);
		return CLI_EXIT_CORDON;
	}
	if (a->state_dir != NULL && cordon_set_state_dir(c, a->state_dir) != 0)
		return fail(c);
	const char *cmd = a->held_cmd;
	if (strcmp(cmd, "changes") == 0)
		return show_changes(c, a->run_id);
	int r;
	if (strcmp(cmd, "diff") == 0) {
		fflush(stdout);
		r = cordon_diff(c, a->run_id, 1);
	} else if (strcmp(cmd, "discard") == 0) {
		r = cordon_discard(c, a->run_id);
	} else {
		r = cordon_apply(c, a->run_id, a->drop_guarded);
		list_refused(c,
			     r == 0 ? "warning: not applied (a guard's)" : "refused (a guard's)");
	}
	if (r != 0)
		return fail(c);
	cordon_free(c);
	return 0;
}

void cli_review_note(const cordon *c)
{
	int review = 0;
	for (const char *const *l = cordon_layers(c); *l != NULL; l++)
		review |= strcmp(*l, "review") == 0;
	if (!review)
		return;
	fprintf(stderr,
		"cordon: the run's workspace changes are held, not applied: cordon changes | diff "
		"| apply | discard %s\n",
		cordon_run_id(c));
}
