/*
 * Fuzz target for --review's record reader (src/core/reviewrec.c): any
 * bytes must be read without a fault, and a record read whole names only
 * relative paths, the kinds and types it knows.
 */
#include "review.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	struct rrecord rec;
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (review_record_parse(buf, size, &rec) == 0) {
		if (rec.workspace == NULL)
			abort();
		for (size_t i = 0; i < rec.n; i++) {
			const struct rchange *c = &rec.v[i];
			if (c->path[0] == '\0' || c->path[0] == '/' ||
			    strchr("amdpl", c->kind) == NULL || strchr("fdlpso-", c->type) == NULL)
				abort();
		}
		review_record_free(&rec);
	}
	free(buf);
	return 0;
}
