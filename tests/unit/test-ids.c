/* Every fixed identifier (src/util/ids.c): each enum value has an identifier
 * and a text, identifiers are unique and well-formed, and the public list
 * holds exactly them. */
#include "ids.h"
#include "tap.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table {
	const char *kind;
	const struct id_text *t;
	size_t n;
	size_t first; /* reasons start after REASON_NONE, which has no id */
};

static struct table tables[] = {
	{ "event", cordon_event_ids, EVENT_COUNT, 0 },
	{ "mode", cordon_mode_ids, 3, 0 },
	{ "backend", cordon_backend_ids, BACKEND_COUNT, 0 },
	{ "reason", cordon_reason_ids, REASON_COUNT, 1 },
	{ "layer", cordon_layer_ids, LAYER_COUNT, 0 },
	{ "gap", cordon_gap_ids, GAP_COUNT, 0 },
	{ "cache tool", cordon_cache_tool_ids, CACHE_TOOL_COUNT, 0 },
	{ "cache state", cordon_cache_state_ids, CACHE_STATE_COUNT, 0 },
	{ "cache writes", cordon_cache_how_ids, CACHE_HOW_COUNT, 0 },
	{ "network", cordon_network_ids, 3, 0 },
	{ "network decision", cordon_net_decision_ids, NET_DECISION_COUNT, 0 },
	{ "network refusal", cordon_net_reason_ids, 0, 0 }, /* n: set in main */
	{ "limit method", cordon_limit_by_ids, LIMIT_BY_COUNT, 1 },
	{ "refusal", cordon_refusal_ids, REFUSAL_COUNT, 0 },
	{ "working directory source", cordon_cwd_from_ids, CWD_FROM_COUNT, 0 },
	{ "hold", cordon_held_ids, HELD_COUNT, 1 },
};
#define NT (sizeof(tables) / sizeof(tables[0]))

static int well_formed(const char *id)
{
	if (id == NULL || id[0] == '\0')
		return 0;
	for (const char *p = id; *p; p++)
		if (!(islower((unsigned char)*p) || *p == '_'))
			return 0;
	return 1;
}

static int listed(const char *id)
{
	for (const char *const *l = cordon_identifiers(); *l != NULL; l++)
		if (strcmp(*l, id) == 0)
			return 1;
	return 0;
}

/* The whole of a file of the source tree (CORDON_TOP, else the current
 * directory), or NULL. */
static char *slurp(const char *rel)
{
	const char *top = getenv("CORDON_TOP");
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", top != NULL ? top : ".", rel);
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, k;
	char chunk[8192];
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + k + 1 > cap) {
			cap = (len + k + 1) * 2;
			char *nb = realloc(buf, cap);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		memcpy(buf + len, chunk, k);
		len += k;
	}
	fclose(f);
	if (buf != NULL)
		buf[len] = '\0';
	return buf;
}

/* Every reason, layer, gap, refusal kind, working directory source
 * ("cwd_from") and way a protected path is held is explained where users
 * look: both CLI references (as `id`) and the man page (the layers and
 * reasons the man page names are a summary; gaps it lists all). */
static void documented(void)
{
	static const char *const docs[] = { "docs/cli-reference.en.md",
					    "docs/cli-reference.ja.md" };
	for (size_t d = 0; d < 2; d++) {
		char *text = slurp(docs[d]);
		if (text == NULL) {
			skip("the source tree's docs are not here (run from the tree)");
			continue;
		}
		int missing = 0;
		/* reason, layer, gap, refusal, working directory source, hold */
		static const size_t kinds[] = { 3, 4, 5, NT - 3, NT - 2, NT - 1 };
		for (size_t ki = 0; ki < sizeof(kinds) / sizeof(kinds[0]); ki++)
			for (size_t k = kinds[ki], i = tables[k].first; i < tables[k].n; i++) {
				char want[128];
				snprintf(want, sizeof(want), "`%s`", tables[k].t[i].id);
				if (strstr(text, want) == NULL) {
					diag("%s does not explain the %s %s", docs[d],
					     tables[k].kind, want);
					missing++;
				}
			}
		is_int(missing, 0,
		       "%s explains every reason, layer, gap, refusal kind, cwd source and hold",
		       docs[d]);
		free(text);
	}
}

int main(void)
{
	for (size_t k = 0; k < NT; k++)
		if (tables[k].t == cordon_net_reason_ids)
			tables[k].n = cordon_net_reason_count;
	documented();
	size_t total = 0;
	for (size_t k = 0; k < NT; k++) {
		const struct table *t = &tables[k];
		int all = 1;
		for (size_t i = t->first; i < t->n; i++) {
			const struct id_text *e = &t->t[i];
			int good = well_formed(e->id) && e->text != NULL && strlen(e->text) > 10 &&
				   listed(e->id);
			if (!good)
				diag("%s %zu: id '%s', text '%s'", t->kind, i,
				     e->id ? e->id : "(null)", e->text ? e->text : "(null)");
			all &= good;
			total++;
		}
		ok(all, "every %s has an identifier (listed) and a text", t->kind);
	}
	ok(cordon_reason_ids[REASON_NONE].id == NULL, "REASON_NONE (applied) writes null");

	/* Unique within a kind; across kinds only the backend/layer pairs
	 * "landlock" and "seatbelt" share a name (the same mechanism). */
	int dup = 0;
	for (size_t a = 0; a < NT; a++)
		for (size_t i = tables[a].first; i < tables[a].n; i++)
			for (size_t b = a; b < NT; b++)
				for (size_t j = b == a ? i + 1 : tables[b].first; j < tables[b].n;
				     j++) {
					const char *x = tables[a].t[i].id, *y = tables[b].t[j].id;
					if (strcmp(x, y) != 0)
						continue;
					if (strcmp(tables[a].kind, "backend") == 0 &&
					    strcmp(tables[b].kind, "layer") == 0)
						continue;
					if (strcmp(tables[a].kind, "mode") == 0 &&
					    strcmp(tables[b].kind, "network") == 0)
						continue; /* "off" */
					if (strcmp(tables[a].kind, "cache state") == 0 &&
					    strcmp(tables[b].kind, "network decision") == 0)
						continue; /* "refused" */
					diag("'%s' is both a %s and a %s", x, tables[a].kind,
					     tables[b].kind);
					dup++;
				}
	is_int(dup, 0, "identifiers are unique");

	size_t n = 0;
	for (const char *const *l = cordon_identifiers(); *l != NULL; l++)
		n++;
	/* "landlock" and "seatbelt" are backends and layers; "off" is a mode
	 * and a network setting; "refused" a cache state and a network
	 * decision: each listed once. */
	is_int(n, total - 4, "cordon_identifiers() lists each identifier once (and nothing else)");
	is_str(cordon_reason_text("landlock_disabled"),
	       cordon_reason_ids[REASON_LANDLOCK_DISABLED].text,
	       "cordon_reason_text finds a reason's text");
	is_str(cordon_reason_text("no such reason"), "confinement is unavailable",
	       "... and says something for an unknown one");
	is_str(cordon_mode_ids[CORDON_MODE_REQUIRED].id, "required",
	       "modes are indexed by enum cordon_mode");
	return done_testing();
}
