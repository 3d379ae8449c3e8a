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
set -euo pipefail

DIR=${UACCESS_SLURM_DIR:-${UACCESS_CACHE:-$HOME/.cache/uaccess-lab}/slurm}
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

start() {
	need
	running slurmctld >/dev/null && { echo "export SLURM_CONF=$CONF"; return 0; }
	stop  # what is left of a node that half-started or half-stopped
	write_conf
	if [ ! -f "$DIR/munge.key" ]; then
		dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 status=none
		chmod 400 "$DIR/munge.key"
	fi
	/usr/sbin/munged --key-file="$DIR/munge.key" --socket="$DIR/munge.socket" \
		--pid-file="$DIR/munged.pid" --log-file="$DIR/log/munged.log" \
		--seed-file="$DIR/munge.seed" --force
	SLURM_CONF=$CONF /usr/sbin/slurmctld -f "$CONF"
	SLURM_CONF=$CONF /usr/sbin/slurmd -f "$CONF"
	for _ in $(seq 60); do
		SLURM_CONF=$CONF sinfo -h -o %T 2>/dev/null | grep -q idle && {
			echo "export SLURM_CONF=$CONF"; return 0; }
		sleep 1
	done
	stop  # nothing half-up is left running
	echo "single-node.sh: the node did not come up; see $DIR/log" >&2
	exit 1
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
