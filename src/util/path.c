#include "path.h"

#include <string.h>

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int path_within(const char *base, const char *p)
{
	size_t n = strlen(base);
	if (n == 1 && base[0] == '/')
		return p[0] == '/';
	if (strncmp(base, p, n) != 0)
		return 0;
	return p[n] == '\0' || p[n] == '/';
}

int path_normalize(const char *cwd, const char *in, char *out, size_t outlen)
{
	size_t len = 0;

	if (outlen < 2)
		return -1;
	out[0] = '\0';
	if (in[0] != '/') {
		if (cwd == NULL || cwd[0] != '/')
			return -1;
		if (path_normalize(NULL, cwd, out, outlen) != 0)
			return -1;
		len = strlen(out);
		if (len == 1)
			len = 0; /* "/" : components are appended as "/name" */
	}
	const char *s = in;
	while (*s != '\0') {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e != '\0' && *e != '/')
			e++;
		size_t clen = (size_t)(e - s);
		if (clen == 0 || (clen == 1 && s[0] == '.')) {
			/* nothing */
		} else if (clen == 2 && s[0] == '.' && s[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--; /* the slash before the dropped component */
		} else {
			if (len + 1 + clen + 1 > outlen)
				return -1;
			out[len++] = '/';
			memcpy(out + len, s, clen);
			len += clen;
		}
		s = e;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return 0;
}

int path_join(char *out, size_t outlen, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t sep = lb > 0 && (la == 0 || a[la - 1] != '/') ? 1 : 0; /* "/" + "x": "/x" */
	size_t need = la + sep + lb + 1;
	if (need > outlen)
		return -1;
	memcpy(out, a, la);
	if (sep)
		out[la] = '/';
	memcpy(out + la + sep, b, lb);
	out[need - 1] = '\0';
	return 0;
}

int path_is_broad(const char *p, const char *const *homes, size_t nhomes)
{
	if (strcmp(p, "/") == 0)
		return 1;
	for (size_t i = 0; i < nhomes; i++) {
		if (homes[i] == NULL || homes[i][0] != '/')
			continue;
		if (path_within(p, homes[i]))
			return 1;
	}
	return 0;
}
