# interval fires, exit() from it runs END, and a map set in BEGIN prints at exit.
run_sonde 'BEGIN { @b = 7; } interval:200ms { @ticks = count(); exit(); } END { printf("bye\n"); }'
expect_status 0
expect_line 'bye'
expect_map '@ticks' 1
expect_map '@b' 7
