# BEGIN runs, printf formats, exit() ends tracing with status 0.
run_sonde 'BEGIN { printf("hello %d\n", 42); exit(); }'
expect_status 0
expect_line 'hello 42'
