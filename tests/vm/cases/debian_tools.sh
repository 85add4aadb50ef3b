# vm-timeout: 600
# vm-cost: 150
# bpftrace's tools as Debian ships them (bpftrace 0.17's /usr/sbin/*.bt, staged at /opt/debian-tools
# by run.sh): on a kernel with kprobes, the function list and kallsyms' data symbols, every tool
# whose kernel functions, tracepoints and binaries exist here passes the verifier; the rest say in
# one sentence what this machine lacks (the guest has no bash, no libssl, no block-device or xfs
# modules).
SONDE_TIMEOUT=120
D=/opt/debian-tools
ls "$D"/*.bt >/dev/null 2>&1 || { fail "no tools staged in $D"; exit 1; }

# Why a tool may not load in this guest: its sentence must say so. (bpftrace 0.17's tools were
# written for older kernels: block-layer functions renamed since, and kfree_skb's reason is 5.17+.)
lacks() {
	case "$1" in
	bashreadline.bt) grep -q 'could not read /bin/bash' "$SONDE_ERR_FILE" ;;
	ssllatency.bt | sslsnoop.bt) grep -q 'could not find a binary or library named `libssl`' "$SONDE_ERR_FILE" ;;
	threadsnoop.bt) grep -q 'could not find a binary or library named `libpthread`' "$SONDE_ERR_FILE" ;;
	biolatency.bt | biosnoop.bt | biostacks.bt)
		grep -q 'there is no kernel function `__\{0,1\}blk_account_io_\(start\|done\)`' "$SONDE_ERR_FILE" ;;
	swapin.bt) grep -q 'there is no kernel function `swap_readpage`' "$SONDE_ERR_FILE" ;;
	tcpdrop.bt) [ "$major.$minor" = 5.10 ] && grep -q 'kfree_skb has no field `reason`' "$SONDE_ERR_FILE" ;;
	# Functions of modules the guest never loads.
	xfsdist.bt) grep -q 'there is no kernel function `xfs_file_read_iter`' "$SONDE_ERR_FILE" ;;
	mdflush.bt) grep -q 'there is no kernel function `md_flush_request`' "$SONDE_ERR_FILE" ;;
	*) return 1 ;;
	esac
}

major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
loaded=0
total=0
for f in "$D"/*.bt; do
	t=${f##*/}
	total=$((total + 1))
	run_sonde -e "$f"
	if [ "$SONDE_STATUS" = 0 ] && grep -q 'passed the verifier' "$SONDE_ERR_FILE"; then
		loaded=$((loaded + 1))
	elif lacks "$t"; then
		note "$t: $(grep -m1 '^error' "$SONDE_ERR_FILE")"
	else
		_vm_check
		fail "$t neither loaded nor said what this machine lacks"
	fi
done
note "$loaded of $total Debian bpftrace tools loaded on $(uname -r)"
check 'most tools load' test "$loaded" -ge 27
