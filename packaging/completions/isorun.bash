# bash completion for isorun(1)                 -*- shell-script -*-
# SPDX-License-Identifier: MIT
# Installed as $(PREFIX)/share/bash-completion/completions/isorun and loaded by
# bash-completion 2 on the first `isorun <TAB>`.

_isorun_run_opts='--root --keep --env-dir --clearenv --setenv --unsetenv --keep-env
	--chdir --pass-fd --watch --residue= --watch-ignore --watch-home --timeout --stop-signal --grace --settle
	--leaks= --rlimit-nofile --rlimit-core --rlimit-fsize --report --junit --finding-exit-code --pidns --pidns=try --map-root --map-users= --cap-keep
	--net= --private-tmp --protect-home= --writable --policy= --policy-mode= --config --no-config
	--memory-max --pids-max --cpu-max --cgroup= --cache
	--bind --ro-bind --tmpfs
	--quiet --verbose --color --color= --help --version'
_isorun_selftest_opts='--json --policy= --policy-mode= --leaks= --protect-home= --net=
	--pidns --pidns=try --settle --help'
_isorun_subcommands='shell selftest config ls gc policy report rerun'
# as in capabilities(7); isorun also takes them lower case and without CAP_
_isorun_caps='all CAP_AUDIT_CONTROL CAP_AUDIT_READ CAP_AUDIT_WRITE CAP_BLOCK_SUSPEND CAP_BPF
	CAP_CHECKPOINT_RESTORE CAP_CHOWN CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_FOWNER
	CAP_FSETID CAP_IPC_LOCK CAP_IPC_OWNER CAP_KILL CAP_LEASE CAP_LINUX_IMMUTABLE
	CAP_MAC_ADMIN CAP_MAC_OVERRIDE CAP_MKNOD CAP_NET_ADMIN CAP_NET_BIND_SERVICE
	CAP_NET_BROADCAST CAP_NET_RAW CAP_PERFMON CAP_SETFCAP CAP_SETGID CAP_SETPCAP
	CAP_SETUID CAP_SYSLOG CAP_SYS_ADMIN CAP_SYS_BOOT CAP_SYS_CHROOT CAP_SYS_MODULE
	CAP_SYS_NICE CAP_SYS_PACCT CAP_SYS_PTRACE CAP_SYS_RAWIO CAP_SYS_RESOURCE
	CAP_SYS_TIME CAP_SYS_TTY_CONFIG CAP_WAKE_ALARM'

# Options whose value is the next word when not given as --opt=value.
_isorun_takes_arg() {
	[ "$1" = --tree ] && return 0 # isorun shell --tree PATH|ID
	case $1 in
	--root | --env-dir | --setenv | --unsetenv | --keep-env | --chdir | --pass-fd | \
		--watch | --residue | --watch-ignore | --timeout | --stop-signal | --grace | --settle | --leaks | \
		--rlimit-nofile | --rlimit-core | --rlimit-fsize | \
		--report | --junit | --finding-exit-code | --map-users | --cap-keep | --net | --protect-home | --writable | --policy | \
		--policy-mode | --config | --memory-max | --pids-max | --cpu-max | --cgroup | --cache | \
		--bind | --ro-bind | --tmpfs)
		return 0
		;;
	esac
	return 1
}

# COMPREPLY for the value of option $1, the word being completed being $2.
_isorun_value() {
	local opt=$1 cur=$2 prefix
	case $opt in
	--tree)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		;;
	--root | --chdir | --watch | --writable)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		;;
	--report | --junit | --config | --bind | --ro-bind | --tmpfs)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	--policy)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -W 'default strict off' -- "$cur"; compgen -f -- "$cur")
		;;
	--residue) mapfile -t COMPREPLY < <(compgen -W 'warn fail' -- "$cur") ;;
	--leaks) mapfile -t COMPREPLY < <(compgen -W 'fail warn ignore' -- "$cur") ;;
	--net) mapfile -t COMPREPLY < <(compgen -W 'host isolated' -- "$cur") ;;
	--protect-home) mapfile -t COMPREPLY < <(compgen -W 'off ro read-only hide' -- "$cur") ;;
	--color) mapfile -t COMPREPLY < <(compgen -W 'auto always never' -- "$cur") ;;
	--policy-mode) mapfile -t COMPREPLY < <(compgen -W 'enforce log' -- "$cur") ;;
	--pidns) mapfile -t COMPREPLY < <(compgen -W 'try' -- "$cur") ;;
	--cgroup) mapfile -t COMPREPLY < <(compgen -W 'auto off' -- "$cur") ;;
	--map-users) mapfile -t COMPREPLY < <(compgen -W 'off auto require' -- "$cur") ;;
	--cache) mapfile -t COMPREPLY < <(compgen -W 'go npm pip cargo xdg none' -- "$cur") ;;
	--stop-signal)
		mapfile -t COMPREPLY < <(compgen -A signal -- "$cur")
		;;
	--unsetenv | --keep-env)
		mapfile -t COMPREPLY < <(compgen -e -- "$cur")
		;;
	--setenv | --env-dir)
		if [[ $cur != *=* ]]; then
			compopt -o nospace 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -e -S = -- "$cur")
		fi
		;;
	--cap-keep)
		# a comma-separated list: complete its last element
		prefix=
		[[ $cur == *,* ]] && prefix=${cur%,*},
		mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$_isorun_caps" -- "${cur##*,}")
		;;
	*) COMPREPLY=() ;;
	esac
}

# Complete the command that starts at word $1 as bash would complete it alone.
_isorun_command() {
	if declare -F _command_offset >/dev/null; then
		_command_offset "$1"
	elif [ "$1" -eq "$cword" ]; then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
	else
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

_isorun() {
	local cur prev words cword split
	# needs bash-completion 2 (whose directory this file is installed in); -s
	# gives --opt=value as prev=--opt cur=value, as getopt_long reads it
	_init_completion -s || return

	local sub='' first=1 opts=$_isorun_run_opts
	case ${words[1]-} in
	shell) sub=shell first=2 opts="--tree --like $_isorun_run_opts" ;;
	rerun) sub=rerun first=3 ;;
	config) sub=config first=2 opts="--json $_isorun_run_opts" ;;
	selftest) sub=selftest first=2 opts=$_isorun_selftest_opts ;;
	ls) sub=ls first=2 opts='--json --root --help' ;;
	gc) sub=gc first=2 opts='--dry-run --kept --all --verbose --root --help' ;;
	policy) sub=policy first=2 ;;
	report) sub=report first=2 opts='--junit --skip-exit-code --help' ;;
	esac

	# isorun rerun REPORT: the report is a file, then a run's options
	if [ "$sub" = rerun ] && [ "$cword" -eq 2 ]; then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
	fi

	if [ "$sub" = policy ]; then
		case $cword in
		2) mapfile -t COMPREPLY < <(compgen -W 'show check' -- "$cur") ;;
		3)
			compopt -o filenames 2>/dev/null
			[ "${words[2]}" = show ] &&
				mapfile -t COMPREPLY < <(compgen -W 'default strict' -- "$cur")
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
			;;
		esac
		return 0
	fi

	# Walk the words before the cursor: an option's separate value is skipped;
	# `--`, or the first other word of a run, starts the command.
	local i w
	for ((i = first; i < cword; i++)); do
		w=${words[i]}
		if [ "$w" = -- ]; then
			case $sub in
			ls | gc | selftest) return 0 ;;
			esac
			_isorun_command $((i + 1))
			return 0
		elif [[ $w == --*=* ]]; then
			continue
		elif [[ $w == -* ]]; then
			_isorun_takes_arg "$w" && ((i++))
		elif [ -z "$sub" ]; then
			_isorun_command "$i"
			return 0
		fi
	done

	if [ "$split" = true ] || { ((cword - 1 >= first)) && _isorun_takes_arg "$prev"; }; then
		_isorun_value "$prev" "$cur"
		return 0
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *= ]]; then
			compopt -o nospace 2>/dev/null
		fi
		case $sub in
		selftest | ls | gc) ;;
		*) [[ -- == "$cur"* ]] && COMPREPLY+=(--) ;;
		esac
		return 0
	fi
	case $sub in
	selftest | ls | gc) return 0 ;;
	report)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
		;;
	esac
	# the first word of a run may be a subcommand or the command itself
	if [ "$cword" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$_isorun_subcommands" -- "$cur"; compgen -c -- "$cur")
	elif [ -z "$sub" ]; then
		_isorun_command "$cword"
	fi
	return 0
}
complete -F _isorun isorun
