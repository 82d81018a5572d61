/*
 * Fuzz target for the policy file parser (policy_parse_text): the input
 * is a policy file's text; an odd first byte sets a workspace first (so
 * relative paths are joined to it). Beyond memory safety it checks the
 * parser's promises: a failure's message is one line that names the file
 * and its line ("f.policy:N: ..."), and the options text of what was
 * applied has one option or comment a line, with no control character
 * but the newlines. No input names --network-allow-file, whose file would
 * be read (a FIFO would block).
 */
#include "handle.h"
#include "options.h"
#include "policyfile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const cordon *c)
{
	char *t = cordon_options_text(c);
	if (t == NULL)
		abort();
	for (const char *l = t; *l != '\0'; l = strchr(l, '\n') + 1)
		if (strchr(l, '\n') == NULL || (*l != '#' && (*l < 'a' || *l > 'z')))
			abort();
	for (const unsigned char *p = (const unsigned char *)t; *p != '\0'; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
			abort();
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (memmem(data, size, "allow-file", 10) != NULL)
		return 0;
	cordon *c = cordon_new();
	if (c == NULL)
		return 0;
	if (size > 0 && (data[0] & 1) && cordon_set_workspace(c, "/w") != 0)
		abort();
	int r = policy_parse_text(c, "f.policy", 1, (const char *)data, size);
	if (r != 0) {
		const char *e = cordon_last_error(c);
		if (strncmp(e, "f.policy:", 9) != 0 || strchr(e, '\n') != NULL || r > 0)
			abort();
		if (r != CORDON_ENOMEM && c->opts != NULL && c->opts->failed != NULL)
			abort(); /* the text alone never marks the handle: its caller does */
	}
	check_text(c);
	cordon_free(c);
	return 0;
}
