# ply's `kretprobe:SyS_read { @["dist"] = quantize(retval); }`: 5 reads of 3333 bytes land in [2K, 4K).
run_sonde -c 'sonde-workload read 5 3333' 'kretprobe:__x64_sys_read /pid == cpid/ { @["dist"] = quantize(retval); }'
expect_status 0
expect_match '^\[2K, 4K\) +5 \|@+\|$'
