// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the policy parser.  Besides not crashing, it checks
 * that the canonical form of anything that parses is itself a policy with the
 * same canonical form (less the "# from" lines of a multi-file policy), and it
 * runs both decisions on what it parsed.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE \
 *         tests/fuzz/fuzz_policy.c $(GEN_BPF_SRC) build/gen/shipped_text.c -lseccomp
 *         (make fuzz: policy/ but load.c and gen_bpf.c, and common/)
 *   ./a.out -max_total_time=30 -max_len=4096
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/unit/policy_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decide_some(const struct pol *p)
{
	static char *const argvs[][5] = {
		{ "systemctl", "--user", "restart", "x", NULL },
		{ "crontab", "-l", NULL },
		{ "service", "nginx", "status", NULL },
		{ "at", NULL },
		{ "x", "--", "-", "", NULL },
	};
	char *const none[] = { NULL };

	for (size_t i = 0; i < sizeof(argvs) / sizeof(argvs[0]); i++)
		(void)pol_decide_exec(p, NULL, argvs[i]);
	for (size_t i = 0; i < pol_guards(p)->n; i++)
		(void)pol_decide_exec(p, pol_guards(p)->v[i].program,
				      pol_guards(p)->n > 1 ? argvs[0] : none);
	for (size_t i = 0; i < pol_sockets(p)->n; i++)
		if (!pol_decide_connect(p, pol_sockets(p)->v[i].path).refuse)
			abort();
	(void)pol_decide_connect(p, "/run/systemd/private");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pol p, q;
	struct pol_error err;
	char buf[1024];
	char *text, *again;

	if (pol_parse((const char *)data, size, "fuzz.policy", &p, &err) < 0) {
		(void)pol_error_format(&err, buf, sizeof(buf));
		return 0;
	}
	text = pol_format(&p);
	if (!text)
		abort();
	decide_some(&p);

	if (pol_parse(text, strlen(text), "fuzz.policy", &q, &err) < 0) {
		fprintf(stderr, "canonical form does not parse: %s\n%s",
			pol_error_format(&err, buf, sizeof(buf)), text);
		abort();
	}
	again = pol_format(&q);
	if (!again)
		abort();
	strip_from_lines(text);
	if (strcmp(text, again) != 0) {
		fprintf(stderr, "canonical form is not stable:\n%s---\n%s", text, again);
		abort();
	}
	free(again);
	free(text);
	pol_free(&q);
	pol_free(&p);
	return 0;
}
