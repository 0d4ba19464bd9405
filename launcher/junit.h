/* SPDX-License-Identifier: MIT */
/*
 * --junit FILE: the run as JUnit XML (the Ant/Jenkins shape CI dashboards read),
 * one test case per guard: the command, the leak gate, residue, policy, teardown
 * and timeout.  A case fails exactly when its finding counts against the verdict
 * (launcher/verdict.c); its text is the verdict's, the words of the stderr lines.
 */
#ifndef ISO_JUNIT_H
#define ISO_JUNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * s as XML 1.0 character data (attr: an attribute value, whose newlines and tabs
 * are kept as references).  Bytes that are not UTF-8, and characters XML cannot
 * hold (controls, U+FFFE, U+FFFF), become the visible text \xNN.
 */
void sup_xml_escape(FILE *f, const char *s, size_t n, bool attr);

#endif
