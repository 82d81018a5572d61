/*
 * The library's pass files (cordon_add_pass_file, src/core/passfile.c):
 * a run writes its pass file and nothing beside it; a pass file the run
 * made and left empty is gone after cordon_end; one that leads through a
 * symlink is refused at cordon_begin with nothing written; the file's
 * path is in the start event's writable set. Each case runs a real
 * command (Landlock must work; else skipped with the reason).
 */
#include "cordon.h"
#include "tap.h"
#include "fixture.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char pf[400], sib[400];

/* A run of sh -c script with the pass file pf (when pass); its status. */
static int run_sh(const char *script, int pass, int *begin_rc, char **start)
{
	struct cordon_result res = { 0 };
	const char *argv[] = { "sh", "-c", script, NULL };
	cordon *c = cordon_new();
	cordon_set_mode(c, CORDON_MODE_REQUIRED);
	cordon_set_state_dir(c, state);
	cordon_set_caches(c, 0);
	if (pass == 1)
		cordon_add_pass_file(c, pf);
	if (pass == 2) /* by name, as a policy file gives it */
		cordon_set_option(c, "pass-file", pf);
	*begin_rc = cordon_begin(c);
	if (*begin_rc != 0) {
		diag("begin: %s", cordon_last_error(c));
		cordon_free(c);
		return -1;
	}
	if (start != NULL)
		*start = cordon_status_json(c);
	cordon_proc *p;
	int r = cordon_spawn(c, argv, &p);
	if (r == 0)
		r = cordon_wait(p, &res);
	cordon_end(c);
	cordon_free(c);
	return r == 0 ? res.exit_code : -1;
}

static int file_is(const char *path, const char *want)
{
	char buf[256] = { 0 };
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 0 && strcmp(buf, want) == 0;
}

int main(void)
{
	char script[1200];
	int brc;
	char *start = NULL;
	struct stat st;

	setup("/tmp/cordon-passfile.XXXXXX");
	cordon *probe = cordon_new();
	cordon_probe(probe);
	if (!cordon_applied(probe)) {
		skip("confinement unavailable here");
		cordon_free(probe);
		teardown();
		return done_testing();
	}
	cordon_free(probe);
	snprintf(pf, sizeof(pf), "%s/pf", outside);
	snprintf(sib, sizeof(sib), "%s/sibling", outside);

	snprintf(script, sizeof(script), "echo result >| '%s'; echo x > '%s'; exit 0", pf, sib);
	is_int(run_sh(script, 1, &brc, &start), 0, "a run with a pass file");
	ok(file_is(pf, "result\n"), "the command's write reached the pass file");
	ok(stat(sib, &st) != 0, "a file beside it was not written");
	ok(start != NULL && strstr(start, pf) != NULL, "the start event names the pass file");
	free(start);
	start = NULL;
	ok(stat(pf, &st) == 0 && (st.st_mode & 0777) == 0600, "made owner-only");

	unlink(pf);
	snprintf(script, sizeof(script), "echo by-name >| '%s'", pf);
	is_int(run_sh(script, 2, &brc, NULL), 0, "a pass file given by name (cordon_set_option)");
	ok(file_is(pf, "by-name\n"), "... is written through as well");

	unlink(pf);
	is_int(run_sh("exit 4", 1, &brc, NULL), 4, "a command that writes nothing: its status");
	ok(stat(pf, &st) != 0, "the empty pass file the run made is gone after cordon_end");

	snprintf(script, sizeof(script), "echo result >| '%s'", pf);
	is_int(run_sh(script, 0, &brc, NULL), 2, "control: without it, the write is refused");
	ok(stat(pf, &st) != 0, "... and nothing was written");

	if (symlink(sib, pf) != 0)
		diag("symlink failed");
	run_sh(script, 1, &brc, NULL);
	is_int(brc, CORDON_EREFUSED, "a pass file that is a symlink: begin refuses");
	ok(stat(sib, &st) != 0, "... its target was not made");
	unlink(pf);

	teardown();
	return done_testing();
}
