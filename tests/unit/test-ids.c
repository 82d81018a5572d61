/* Every fixed identifier (src/ids.c): each enum value has an identifier
 * and a text, identifiers are unique and well-formed, and the public list
 * holds exactly them. */
#include "ids.h"
#include "tap.h"

#include <ctype.h>
#include <string.h>

struct table {
	const char *kind;
	const struct id_text *t;
	size_t n;
	size_t first; /* reasons start after REASON_NONE, which has no id */
};

static const struct table tables[] = {
	{ "event", cordon_event_ids, EVENT_COUNT, 0 },
	{ "mode", cordon_mode_ids, 3, 0 },
	{ "backend", cordon_backend_ids, BACKEND_COUNT, 0 },
	{ "reason", cordon_reason_ids, REASON_COUNT, 1 },
	{ "layer", cordon_layer_ids, LAYER_COUNT, 0 },
	{ "gap", cordon_gap_ids, GAP_COUNT, 0 },
	{ "cache tool", cordon_cache_tool_ids, CACHE_TOOL_COUNT, 0 },
	{ "cache state", cordon_cache_state_ids, CACHE_STATE_COUNT, 0 },
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

int main(void)
{
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
					diag("'%s' is both a %s and a %s", x, tables[a].kind,
					     tables[b].kind);
					dup++;
				}
	is_int(dup, 0, "identifiers are unique");

	size_t n = 0;
	for (const char *const *l = cordon_identifiers(); *l != NULL; l++)
		n++;
	is_int(n, total - 2, "cordon_identifiers() lists each identifier once (and nothing else)");
	is_str(cordon_reason_text("landlock_disabled"),
	       cordon_reason_ids[REASON_LANDLOCK_DISABLED].text,
	       "cordon_reason_text finds a reason's text");
	is_str(cordon_reason_text("no such reason"), "confinement is unavailable",
	       "... and says something for an unknown one");
	is_str(cordon_mode_ids[CORDON_MODE_REQUIRED].id, "required",
	       "modes are indexed by enum cordon_mode");
	return done_testing();
}
