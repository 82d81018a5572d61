/*
 * cordon-first-child ARG...: cordon(1) itself (its main, renamed by the
 * Makefile), except that its runs ignore the hint that a refusal is
 * likely (cordon_test_first_child_trial, src/core/testhooks.h): the first
 * child of a run is always the trial and meets a refusal itself, where
 * cordon(1) would have started the trial at once. The library itself
 * has no way to set this from outside. Test helper only.
 */
#include "testhooks.h"

int cordon_cli_main(int argc, char *argv[]);

int main(int argc, char *argv[])
{
	cordon_test_first_child_trial(1);
	return cordon_cli_main(argc, argv);
}
