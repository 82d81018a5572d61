/*
 * The Seatbelt profile's hold on the agent-configuration names below the
 * agent-config guard's levels (agentcfg.c): at any depth of the workspace
 * and of each --allow-write directory, a held name (.claude, .vscode,
 * .env...) cannot be made, written, linked or renamed into place, nor
 * anything beneath it. Pure, so unit-tested on Linux.
 *
 * One rule per tree, after the allows of the writable set:
 *   (deny file-write* file-link (regex (param "AGENT_BELOW_n")))
 * whose parameter is the regular expression
 *   ^TREE/(.+/)?(NAME|NAME|...)(/|$)
 * then each --allow-agent-config path in such a tree allowed again,
 * before the protections (which still win inside it):
 *   (allow file-write* file-link (literal (param "AGENT_ALLOW_n"))
 *                                (subpath (param "AGENT_ALLOW_n")))
 * A tree inside another one takes no rule of its own: the other's covers
 * it.
 *
 * The expression is a parameter, not text of the profile, so that the
 * profile stays constant (backend-seatbelt.c): no byte of a path can end
 * the string or the rule it stands in, and only the regex syntax needs
 * escaping, done here. SBPL's (regex X) takes a string X computed when
 * the profile is evaluated, as public profiles do with
 * (regex (string-append "^" (param "HOME") ...)) (unverified by this
 * project: tests/macos/run checks it on a Mac).
 *
 * The regex syntax (Seatbelt's matcher, close to POSIX extended): a
 * backslash makes each of ^ . [ $ ( ) | * + ? { \ ordinary, the set
 * SBPL's own regex-quote escapes; ] and } alone are ordinary. The
 * expression is ASCII whatever the path: whether the matcher reads other
 * bytes as UTF-8 or byte by byte is not known, so a run of characters
 * that are not ASCII (valid UTF-8) is written [^/]+, which matches it
 * either way (and any other run of characters within that component:
 * the names are refused in a few more places, never in fewer; the
 * Unicode form a volume keeps a name in no longer matters). A tree's
 * path with a control character (a newline...) or bytes that are not
 * UTF-8 (which an APFS volume refuses in a name anyway) is not written:
 * that tree gets no rule, and the run reports the gap
 * agent_config_depth_partial.
 *
 * Case: a macOS volume is case-insensitive unless formatted otherwise,
 * so a .CLAUDE made there is the .claude an agent opens. Each letter of
 * a name matches in either ASCII case, and 's' and 'k' also as a run of
 * characters that are not ASCII: U+017F and U+212A, which Unicode case
 * folding makes 's' and 'k', are such a run. The tree's path is matched
 * as it is: it is canonical (realpath, the case on disk), and Seatbelt
 * compares the path the kernel resolved, as for every other rule of the
 * profile.
 */
#include "json.h"
#include "path.h"
#include "seatbelt.h"

#include <stdlib.h>
#include <string.h>

/* What a backslash makes ordinary. */
static const char regex_special[] = "^.[$()|*+?{\\";

/* The letter c (ASCII) in either case. */
static void fold_letter(struct jbuf *b, unsigned char c)
{
	char lo = (char)(c | 0x20), up = (char)(c & ~0x20), text[8];
	size_t n = 0;
	/* ſ (U+017F) and the Kelvin sign (U+212A) fold to s and k. */
	if (lo == 's' || lo == 'k')
		text[n++] = '(';
	text[n++] = '[';
	text[n++] = lo;
	text[n++] = up;
	text[n++] = ']';
	jb_rawn(b, text, n);
	if (lo == 's' || lo == 'k')
		jb_raw(b, "|[^ -~]+)");
}

int seatbelt_regex_quote(struct jbuf *b, const char *s, size_t len, int fold)
{
	int run = 0; /* inside a run of characters that are not ASCII */
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c >= 0x80) {
			size_t n = utf8_seq_len((const unsigned char *)s + i, len - i);
			if (n == 0)
				return -1;
			if (!run)
				jb_raw(b, "[^/]+");
			run = 1;
			i += n;
			continue;
		}
		run = 0;
		if (fold && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			fold_letter(b, c);
		} else {
			if (strchr(regex_special, c) != NULL)
				jb_rawn(b, "\\", 1);
			jb_rawn(b, s + i, 1);
		}
		i++;
	}
	return 0;
}

int seatbelt_below_regex(const char *tree, const char *const *names, size_t n, char **out)
{
	struct jbuf b = { 0 };
	size_t len = strlen(tree);
	int bad = tree[0] != '/' || n == 0;
	*out = NULL;
	while (len > 0 && tree[len - 1] == '/')
		len--; /* "/": no component before the slash below */
	jb_raw(&b, "^");
	bad |= seatbelt_regex_quote(&b, tree, len, 0) != 0;
	jb_raw(&b, "/(.+/)?(");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			jb_raw(&b, "|");
		bad |= names[i][0] == '\0' ||
		       seatbelt_regex_quote(&b, names[i], strlen(names[i]), 1) != 0;
	}
	jb_raw(&b, ")(/|$)");
	char *text = jb_finish(&b);
	if (text == NULL)
		return CORDON_ENOMEM;
	if (bad) {
		free(text);
		return 1;
	}
	*out = text;
	return 0;
}

/* Tree k lies in no other one (the first of equal ones): its rule covers
 * those inside it. */
static int outermost(const struct policy *p, size_t k)
{
	const char *t = policy_project_tree(p, k), *o;
	for (size_t j = 0; (o = policy_project_tree(p, j)) != NULL; j++)
		if (j != k && path_within(o, t) && (j < k || strcmp(o, t) != 0))
			return 0;
	return 1;
}

static int in_project(const struct policy *p, const char *path)
{
	const char *t;
	for (size_t k = 0; (t = policy_project_tree(p, k)) != NULL; k++)
		if (path_within(t, path))
			return 1;
	return 0;
}

int seatbelt_held_params(const struct policy *p, struct strv *params, struct sb_shape *s)
{
	if (p->held_names == NULL || p->nheld_names == 0)
		return 0;
	const char *t;
	for (size_t k = 0; (t = policy_project_tree(p, k)) != NULL; k++) {
		char *re;
		if (!outermost(p, k))
			continue;
		int r = seatbelt_below_regex(t, p->held_names, p->nheld_names, &re);
		if (r == CORDON_ENOMEM)
			return r;
		if (r != 0) {
			s->unexpressed++;
			continue;
		}
		r = seatbelt_push_param(params, SB_BELOW, s->below++, re);
		free(re);
		if (r != 0)
			return r;
	}
	/* Never a grant beyond the writable set: only inside a tree. */
	for (size_t i = 0; i < p->agent_opted.n; i++) {
		const char *path = p->agent_opted.v[i];
		int r = in_project(p, path) ? seatbelt_push_param(params, SB_AGENT_ALLOW,
								  s->agent_allows++, path)
					    : 0;
		if (r != 0)
			return r;
	}
	return 0;
}
