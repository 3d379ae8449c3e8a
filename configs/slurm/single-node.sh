#!/usr/bin/env bash
# A single-node Slurm on this machine, for tests and for trying
# `run.py sweep --executor slurm`: Debian 12's slurm-wlm and munge, no
# systemd, everything under one folder (default ~/.cache/uaccess-lab/slurm).
#   configs/slurm/single-node.sh start   # prints: export SLURM_CONF=...
#   configs/slurm/single-node.sh stop
#   configs/slurm/single-node.sh status
#   configs/slurm/single-node.sh pids    # "<daemon> <pid>" of each one running
# munged, slurmctld and slurmd run as the calling user (root here), on
# non-default ports so that a real cluster's daemons are not disturbed.
# One single node per machine: `start` from another folder (another
# UACCESS_CACHE) finds the one running and prints its SLURM_CONF.
set -euo pipefail

# The cache root as lab/cache.py finds it: UACCESS_CACHE, else XDG_CACHE_HOME.
DIR=${UACCESS_SLURM_DIR:-${UACCESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/uaccess-lab}/slurm}
CONF=$DIR/slurm.conf
NODE=$(hostname -s)

need() {
	for t in munged slurmctld slurmd sinfo; do
		command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] || {
			echo "single-node.sh: $t not found: apt-get install slurm-wlm munge" >&2
			exit 2
		}
	done
}

write_conf() {
	local cpus mem
	cpus=$(nproc)
	mem=$(( $(free -m | awk '/^Mem:/ {print $2}') * 9 / 10 ))
	mkdir -p "$DIR"/{state,spool,log}
	cat > "$CONF" <<CONF
ClusterName=uaccess-lab
SlurmctldHost=$NODE
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerParameters=sched_interval=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
NodeName=$NODE CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=lab Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
}

# The single-node daemons running on this machine from another folder:
# "<folder> <daemon> <pid> <conf>" each (slurmctld and slurmd name their
# slurm.conf with -f, munged its socket with --socket=). A real cluster's
# daemons, started without -f, are not ours and use other ports.
others() {
	local d comm prev arg conf
	for d in /proc/[0-9]*; do
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		case $comm in munged|slurmctld|slurmd) ;; *) continue ;; esac
		conf= prev=
		while IFS= read -r -d '' arg; do
			[ "$prev" = -f ] && conf=$arg
			case $arg in --socket=*) conf=${arg#--socket=} ;; esac
			prev=$arg
		done < "$d/cmdline" 2>/dev/null || true
		[ -n "$conf" ] || continue
		[ "$(realpath -m "$(dirname "$conf")")" = "$(realpath -m "$DIR")" ] && continue
		echo "$(dirname "$conf") $comm ${d#/proc/} $conf"
	done
}

# One single node per machine (its ports are fixed): the one running from
# another folder (another UACCESS_CACHE) is reused if it answers. Else
# fail in one line naming what runs and how to stop it, starting nothing.
reuse_other() {
	local found ctld conf why stops
	found=$(others)
	[ -n "$found" ] || return 0
	ctld=$(awk '$2 == "slurmctld"' <<<"$found")
	if [ -z "$ctld" ]; then
		why="daemons of a single node from another folder are left running here"
	elif [ "$(wc -l <<<"$ctld")" != 1 ]; then
		why="single nodes from several other folders run here"
	else
		conf=$(awk '{print $4}' <<<"$ctld")
		if [ -r "$conf" ] && SLURM_CONF=$conf timeout 20 sinfo -h -o %T 2>/dev/null | grep -q .; then
			echo "single-node.sh: reusing the single node running from $(dirname "$conf")" >&2
			echo "export SLURM_CONF=$conf"
			exit 0
		fi
		why="a single node from another folder runs here and does not answer"
	fi
	stops=$(awk '{print $1}' <<<"$found" | sort -u | while read -r d; do
		printf "%s'UACCESS_SLURM_DIR=%s %s stop'" "${sep:-}" "$d" "$0"; sep=" and "; done)
	echo "single-node.sh: $why" \
		"($(awk '{printf "%s%s: %s %s", (NR > 1 ? ", " : ""), $1, $2, $3}' <<<"$found")):" \
		"stop it with $stops, then start again" >&2
	exit 1
}

# The ports are free (a process this script cannot see, or another
# program, may hold them).
ports_free() {
	local held
	command -v ss >/dev/null || return 0
	held=$(ss -Hltn '( sport = :16817 or sport = :16818 )' 2>/dev/null | awk '{print $4}' | tr '\n' ' ')
	[ -z "$held" ] && return 0
	echo "single-node.sh: the single node's ports are in use (${held% }) by no single node" \
		"this script can see: stop what holds them (ss -ltnp), then start again" >&2
	exit 1
}

start_failed() {
	stop  # nothing half-up is left running
	echo "single-node.sh: $1 did not start; see $DIR/log" >&2
	exit 1
}

start() {
	need
	# One start at a time on this machine (two would race for the ports).
	exec 9>"${TMPDIR:-/tmp}/uaccess-lab-slurm.lock"
	flock 9
	running slurmctld >/dev/null && { echo "export SLURM_CONF=$CONF"; return 0; }
	reuse_other
	stop  # what is left of a node that half-started or half-stopped
	ports_free
	write_conf
	if [ ! -f "$DIR/munge.key" ]; then
		dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 status=none
		chmod 400 "$DIR/munge.key"
	fi
	# The daemons must not inherit the lock (9>&-): it would never be freed.
	/usr/sbin/munged --key-file="$DIR/munge.key" --socket="$DIR/munge.socket" \
		--pid-file="$DIR/munged.pid" --log-file="$DIR/log/munged.log" \
		--seed-file="$DIR/munge.seed" --force 9>&- || start_failed munged
	SLURM_CONF=$CONF /usr/sbin/slurmctld -f "$CONF" 9>&- || start_failed slurmctld
	SLURM_CONF=$CONF /usr/sbin/slurmd -f "$CONF" 9>&- || start_failed slurmd
	for _ in $(seq 60); do
		SLURM_CONF=$CONF sinfo -h -o %T 2>/dev/null | grep -q idle && {
			echo "export SLURM_CONF=$CONF"; return 0; }
		sleep 1
	done
	start_failed "the node"
}

# The pid in $DIR/$1.pid if that process is running and is $1.
running() {
	local pid
	[ -f "$DIR/$1.pid" ] || return 1
	pid=$(cat "$DIR/$1.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && echo "$pid"
}

# Stop each daemon and wait for it to exit (slurmctld saves its state
# first): when stop returns, nothing of the node runs any more.
stop() {
	local pid
	for d in slurmd slurmctld munged; do
		pid=$(running "$d") || { rm -f "$DIR/$d.pid"; continue; }
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 60); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$DIR/$d.pid"
	done
}

case ${1:-} in
	start) start ;;
	stop) stop ;;
	status) SLURM_CONF=$CONF sinfo ;;
	pids) for d in munged slurmctld slurmd; do p=$(running "$d") && echo "$d $p"; done; true ;;
	*) echo "usage: $0 start|stop|status|pids" >&2; exit 2 ;;
esac
