/*
 * uring_probe.c - does io_uring_submit block on this file?
 *
 * ranread's tests on slowfs rely on a FUSE behaviour: once max_background
 * requests are in flight, the process that submits the next O_DIRECT read
 * waits inside io_uring_enter until one completes.  This probe opens FILE
 * with O_DIRECT, submits N reads of BS bytes at distinct offsets, one
 * io_uring_submit each and no reaping in between (as ranread's engine
 * submits), times every submit, then reaps them all.  It prints one line:
 *
 *   submits=N blocked=K first_blocked=I max_submit_us=X reaped=N
 *
 * blocked counts the submits that took longer than THRESHOLD_US (default
 * 500); first_blocked is the 0-based index of the first (-1 if none).  On
 * slowfs with read_delay_us=2000 and the default max_background of 12, the
 * first 12 submits return at once and the rest each wait about 2 ms.
 * With -v, every submit's time is printed too.
 *
 * Usage: uring_probe [-v] FILE N BS [THRESHOLD_US]
 * Build: gcc -Wall -Wextra -O2 uring_probe.c -luring
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

int
main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_params params;
	int			verbose = 0,
				n,
				fd,
				rc,
				blocked = 0,
				first_blocked = -1,
				reaped = 0;
	long		bs,
				threshold_us = 500;
	long long	max_ns = 0;
	char	   *buf;

	if (argc > 1 && strcmp(argv[1], "-v") == 0)
	{
		verbose = 1;
		argv++;
		argc--;
	}
	if (argc < 4)
	{
		fprintf(stderr, "usage: uring_probe [-v] FILE N BS [THRESHOLD_US]\n");
		return 2;
	}
	n = atoi(argv[2]);
	bs = atol(argv[3]);
	if (argc > 4)
		threshold_us = atol(argv[4]);
	if (n < 1 || n > 4096 || bs < 512 || bs % 512 != 0)
	{
		fprintf(stderr, "uring_probe: N must be 1..4096, BS a multiple of 512\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0)
	{
		perror(argv[1]);
		return 1;
	}
	if (posix_memalign((void **) &buf, 4096, (size_t) n * bs) != 0)
		return 1;

	/* the flags ranread's engine asks for first */
	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN |
		IORING_SETUP_DEFER_TASKRUN;
	rc = io_uring_queue_init_params((unsigned) n, &ring, &params);
	if (rc == -EINVAL)
		rc = io_uring_queue_init((unsigned) n, &ring, 0);
	if (rc < 0)
	{
		fprintf(stderr, "uring_probe: io_uring_queue_init: %s\n", strerror(-rc));
		return 1;
	}

	for (int i = 0; i < n; i++)
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		long long	t0,
					dt;

		io_uring_prep_read(sqe, fd, buf + (size_t) i * bs, (unsigned) bs, (off_t) i * bs);
		t0 = now_ns();
		rc = io_uring_submit(&ring);
		dt = now_ns() - t0;
		if (rc != 1)
		{
			fprintf(stderr, "uring_probe: io_uring_submit returned %d\n", rc);
			return 1;
		}
		if (dt > max_ns)
			max_ns = dt;
		if (dt > threshold_us * 1000)
		{
			blocked++;
			if (first_blocked < 0)
				first_blocked = i;
		}
		if (verbose)
			printf("submit %d: %lld us\n", i, dt / 1000);
	}
	while (reaped < n)
	{
		struct io_uring_cqe *cqe;

		rc = io_uring_wait_cqe(&ring, &cqe);
		if (rc < 0)
		{
			fprintf(stderr, "uring_probe: io_uring_wait_cqe: %s\n", strerror(-rc));
			return 1;
		}
		if (cqe->res != bs)
		{
			fprintf(stderr, "uring_probe: read %d returned %d\n", reaped, cqe->res);
			return 1;
		}
		io_uring_cqe_seen(&ring, cqe);
		reaped++;
	}
	printf("submits=%d blocked=%d first_blocked=%d max_submit_us=%lld reaped=%d\n",
		   n, blocked, first_blocked, max_ns / 1000, reaped);
	io_uring_queue_exit(&ring);
	close(fd);
	free(buf);
	return 0;
}
