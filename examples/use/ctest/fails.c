/* A test that fails on its own. */
#include <stdio.h>

int main(void)
{
	puts("fails: 2 + 2 != 5");
	return 1;
}
