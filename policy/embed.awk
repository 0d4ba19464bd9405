# Writes the shipped policies (the policy/*.policy files given as arguments) as
# one C table, so that `--policy=default` needs no file at run time and the
# compiled-in text can never drift from the file.  The Makefile runs it.
function flush(   i) {
	printf "static const char text_%d[] =\n", n
	if (lines == 0)
		printf "\t\"\"\n"
	for (i = 1; i <= lines; i++)
		printf "\t\"%s\"\n", buf[i]
	printf ";\n\n"
}
BEGIN {
	print "/* Generated from the policy/ files by policy/embed.awk: do not edit. */"
	print "#include \"policy/policy.h\"\n"
	n = 0
}
FNR == 1 {
	if (n)
		flush()
	n++
	lines = 0
	file[n] = FILENAME
	sub(/^.*\//, "", file[n])
	name[n] = file[n]
	sub(/\.policy$/, "", name[n])
}
{
	line = $0
	gsub(/\\/, "\\\\", line)
	gsub(/"/, "\\\"", line)
	buf[++lines] = line "\\n"
}
END {
	if (n)
		flush()
	print "const struct pol_text pol_shipped_text[] = {"
	for (i = 1; i <= n; i++)
		printf "\t{ \"%s\", \"%s\", text_%d, sizeof(text_%d) - 1 },\n", name[i], file[i], i, i
	print "};"
	printf "const size_t pol_n_shipped_text = %d;\n", n
}
