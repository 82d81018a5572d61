/*
 * Policy files and profiles (policyfile.c): their format, read into the
 * option table (options.c).
 */
#ifndef CORDON_POLICYFILE_H
#define CORDON_POLICYFILE_H

#include "cordon.h"

#include <stddef.h>

/* A policy file's bounds: its size and a line's length (bytes). */
#define POLICY_FILE_MAX 65536
#define POLICY_LINE_MAX 8192

/* Apply the policy text (len bytes, any bytes) under name: a file's path
 * (is_file: its relative paths resolve against the workspace) or
 * "profile NAME". 0, or an error whose message starts "NAME:LINE: " (or
 * "NAME: " for the whole text), the options of the lines before applied. */
int policy_parse_text(cordon *c, const char *name, int is_file, const char *text, size_t len);

/* At cordon_begin(), once the writable set is resolved: every policy
 * input (policy files, --network-allow-file files) lies outside the
 * trees any run may write and is not reached through a symlink in one.
 * 0 or CORDON_EREFUSED. */
int policyfile_check(cordon *c);

#endif
