/*
 * tests/helpers/probe-run: what a library program sees when it probes
 * first (cordon_probe, as the README suggests) and then runs, in one
 * process; for tests/t0215-probe-run.sh.
 *
 *   probe-run [--probe] [--scratch-home] [--mode M] [--state DIR] [-w DIR]
 *             -- CMD...
 * With --probe, a handle of its own is probed first: "probe available
 * yes|no", "probe layers L...", "probe scratch_home true|false". Then a
 * run of CMD with the options: "run R" (cordon_run's return code, with
 * "error: ..." when not 0), "exit N" (the command's status), "run layers
 * L...". Test helper only.
 */
#include "cordon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_list(const char *what, const char *const *l)
{
	printf("%s", what);
	for (size_t i = 0; l[i] != NULL; i++)
		printf(" %s", l[i]);
	printf("\n");
}

static int probe(void)
{
	cordon *c = cordon_new();
	if (c == NULL || cordon_probe(c) != 0)
		return 2;
	char *j = cordon_probe_json(c);
	if (j == NULL)
		return 2;
	printf("probe available %s\n", cordon_applied(c) ? "yes" : "no");
	print_list("probe layers", cordon_layers(c));
	printf("probe scratch_home %s\n",
	       strstr(j, "\"scratch_home\":true") != NULL ? "true" : "false");
	free(j);
	cordon_free(c);
	return 0;
}

int main(int argc, char **argv)
{
	enum cordon_mode mode = CORDON_MODE_AUTO;
	cordon *c = cordon_new();
	int i = 1, r = 0;
	if (c == NULL)
		return 2;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		if (strcmp(o, "--probe") == 0)
			r = probe();
		else if (strcmp(o, "--scratch-home") == 0)
			r = cordon_set_scratch_home(c, 1);
		else if (strcmp(o, "--mode") == 0 && ++i)
			r = cordon_parse_mode(v, &mode);
		else if (strcmp(o, "--state") == 0 && ++i)
			r = cordon_set_state_dir(c, v);
		else if (strcmp(o, "-w") == 0 && ++i)
			r = cordon_set_workspace(c, v);
		else
			r = -1;
		if (r != 0) {
			fprintf(stderr, "probe-run: %s: %s\n", o, cordon_last_error(c));
			return 2;
		}
	}
	if (i + 1 >= argc || cordon_set_mode(c, mode) != 0)
		return 2;
	struct cordon_result res = { 0, 0, 0, 0 };
	fflush(stdout);
	r = cordon_run(c, (const char *const *)argv + i + 1, &res);
	printf("run %d\n", r);
	if (r != 0)
		printf("error: %s\n", cordon_last_error(c));
	printf("exit %d\n", res.exit_code);
	print_list("run layers", cordon_layers(c));
	cordon_free(c);
	return 0;
}
