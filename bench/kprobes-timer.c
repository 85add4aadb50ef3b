/*
 * bench/kprobes-timer.c: times one run of a tracer for bench/kprobes.sh (built by it with cc and
 * run inside the qemu guest, where there is no python and busybox's clocks are too coarse).
 *
 *   kprobes-timer [-r READY] [-i] [-t SECS] [-o LOG] -- COMMAND [ARGS...]
 *
 * Starts COMMAND in a process group of its own with stdout and stderr on one pipe, and prints one
 * line of seconds since the launch (CLOCK_MONOTONIC; -1 when it did not happen):
 *
 *   attaching=S  the first line containing "Attaching " or "Attached " was printed (probes=N is its number)
 *   ready=S      the first line containing READY was printed
 *   sigint=S     with -i: SIGINT was sent to the group (as Ctrl-C would), right after READY
 *   exit=S       COMMAND exited (its status: status=N, or signal=N)
 *   detach=S     exit - sigint
 *
 * -t SECS (default 300): then SIGKILL the group and say timeout=1. -o LOG: copy the output there.
 * After COMMAND exits, whatever is left of its group is killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double t0;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: kprobes-timer [-r READY] [-i] [-t SECS] [-o LOG] -- COMMAND [ARGS...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *logpath = NULL;
	int interrupt = 0, opt;
	double limit = 300;
	while ((opt = getopt(argc, argv, "+r:it:o:")) != -1) {
		switch (opt) {
		case 'r': ready = optarg; break;
		case 'i': interrupt = 1; break;
		case 't': limit = atof(optarg); break;
		case 'o': logpath = optarg; break;
		default: usage();
		}
	}
	if (optind >= argc || (interrupt && !ready))
		usage();
	FILE *log = NULL;
	if (logpath && !(log = fopen(logpath, "w"))) {
		perror(logpath);
		return 2;
	}

	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		perror("pipe2");
		return 2;
	}
	t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "kprobes-timer: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		perror("pidfd_open");
		return 2;
	}

	double t_attaching = -1, t_ready = -1, t_sigint = -1, t_exit = -1;
	long probes = -1;
	int status = 0, timed_out = 0, out_open = 1;
	char line[8192];
	size_t len = 0;
	while (t_exit < 0) {
		double left = limit - (now() - t0);
		if (left <= 0) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			t_exit = now() - t0;
			break;
		}
		struct pollfd p[2] = { { pidfd, POLLIN, 0 }, { fds[0], POLLIN, 0 } };
		int n = poll(p, out_open ? 2 : 1, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			perror("poll");
			return 2;
		}
		double t = now() - t0;
		if (out_open && (p[1].revents & (POLLIN | POLLHUP))) {
			char buf[4096];
			ssize_t r = read(fds[0], buf, sizeof buf);
			if (r <= 0) {
				out_open = 0;
			} else {
				if (log)
					fwrite(buf, 1, (size_t)r, log);
				for (ssize_t i = 0; i < r; i++) {
					if (buf[i] != '\n' && len < sizeof line - 1) {
						line[len++] = buf[i];
						continue;
					}
					if (buf[i] != '\n')
						continue; /* an over-long line: keep its start */
					line[len] = 0;
					len = 0;
					/* bpftrace 0.17's "Attaching N probes...", sonde's "Attached N probes" */
					char *a = strstr(line, "Attaching ");
					if (!a)
						a = strstr(line, "Attached ");
					if (a && t_attaching < 0) {
						t_attaching = t;
						probes = strtol(strchr(a, ' ') + 1, NULL, 10);
					}
					if (ready && t_ready < 0 && strstr(line, ready)) {
						t_ready = t;
						if (interrupt) {
							kill(-pid, SIGINT);
							t_sigint = now() - t0;
						}
					}
				}
			}
		}
		if (p[0].revents & POLLIN) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				t_exit = now() - t0;
		}
	}
	kill(-pid, SIGKILL); /* what the command left behind (e.g. a -c child) */
	if (log) {
		/* The rest of the output, for the log only; whoever held the pipe is gone now. */
		char buf[4096];
		struct pollfd p = { fds[0], POLLIN, 0 };
		while (out_open && poll(&p, 1, 500) > 0) {
			ssize_t r = read(fds[0], buf, sizeof buf);
			if (r <= 0)
				break;
			fwrite(buf, 1, (size_t)r, log);
		}
		fclose(log);
	}

	printf("attaching=%.4f ready=%.4f sigint=%.4f exit=%.4f detach=%.4f probes=%ld", t_attaching, t_ready,
	       t_sigint, t_exit, t_sigint >= 0 ? t_exit - t_sigint : -1.0, probes);
	if (WIFSIGNALED(status))
		printf(" signal=%d", WTERMSIG(status));
	else
		printf(" status=%d", WEXITSTATUS(status));
	if (timed_out)
		printf(" timeout=1");
	printf("\n");
	return timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}
