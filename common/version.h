/* SPDX-License-Identifier: MIT */
/*
 * The build's version: `git describe` of the checkout it was built from, or
 * VERSION (the Makefile's BUILD_VERSION, in the generated build/gen/version.c).
 * --version, the report and JUnit print it, so a CI log tells builds apart.
 */
#ifndef ISO_VERSION_H
#define ISO_VERSION_H

extern const char iso_version[];
#define ISO_VERSION iso_version

#endif
