#!/usr/bin/env bash
# A single-node Slurm on this machine, for tests and for trying
# `run.py sweep --executor slurm`: Debian 12's slurm-wlm and munge, no
# systemd, everything under one folder (default ~/.cache/uaccess-lab/slurm).
#   configs/slurm/single-node.sh start   # prints: export SLURM_CONF=...
#   configs/slurm/single-node.sh stop
#   configs/slurm/single-node.sh status
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
	[ -f "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null && {
		echo "export SLURM_CONF=$CONF"; return 0; }
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
	echo "single-node.sh: the node did not come up; see $DIR/log" >&2
	exit 1
}

stop() {
	for d in slurmd slurmctld munged; do
		[ -f "$DIR/$d.pid" ] && kill "$(cat "$DIR/$d.pid")" 2>/dev/null || true
	done
}

case ${1:-} in
	start) start ;;
	stop) stop ;;
	status) SLURM_CONF=$CONF sinfo ;;
	*) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
