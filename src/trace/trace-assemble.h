/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A traced pageset -> a pack: name the inodes, check them, gather their facts, then build */
#ifndef URA_TRACE_ASSEMBLE_H
#define URA_TRACE_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct access_log;
struct pageset_range;
struct rakb_state;
struct sys_view;
struct trace_demand;
struct trace_summary;

struct assemble_opts {
	const char *pack;		/* the pack to write */
	const char *root;		/* canonical --root (root_canonical()), or NULL */
	char **argv;			/* the command traced, for the pack's info, or NULL */
	bool from_recording;		/* --input: the page cache now tells nothing of the trace */
	unsigned read_ahead_kb;		/* --read-ahead-kb, for the pack's info (0: not forced) */
	unsigned info_flags;		/* URA_PACK_INFO_* */
	bool recorded_meta_only;	/* no metadata derived from the layout (tests compare) */
	uint64_t duration_ns;		/* length of the trace */
	const struct access_log *access;	/* the trace's access log to write, or NULL */
	/* a file (its path as the daemon sees it) to leave out when this says true, or NULL */
	bool (*leave_out)(void *ctx, const char *path);
	void *leave_out_ctx;
};

/* The devices of a pack's filesystems, each once, in the pack's order (0:0 left out). */
struct assemble_devices {
	unsigned (*dev)[2];		/* major, minor */
	size_t n;
};

/** assemble_devices_free() - accepts a zeroed @d */
void assemble_devices_free(struct assemble_devices *d);

/**
 * assemble_pack() - name the traced inodes and write the pack
 * @o: options
 * @d: the trace's pages and times
 * @view: the system now (after the trace): its mounts (there must be a table),
 *	and each filesystem's device facts (read into it when first asked for)
 * @ra: read_ahead_kb forced during the trace, or NULL
 * @sum: counts of files, ranges, bytes, unresolved and left-out files are added;
 *	@sum->lost_events goes into the pack; @sum->pack_written is set
 * @ret_devs: if not NULL, on success the devices of the pack's filesystems
 *	(what trace_measure_devices() measures); free with assemble_devices_free()
 *
 * First every fact is gathered: the inodes are named (resolve, btrfs
 * subvolumes), each name is checked to still be the traced inode (statx, birth
 * time against inode reuse, not the pack or ura-trace itself, below --root),
 * the request limits of each filesystem's device are taken from @view (with
 * an access log). Then the pack is built from those facts and written
 * atomically: with @o->access, the accesses to the files of the pack (those to
 * other files are dropped) and each filesystem's readahead facts. Logs its
 * errors (one line).
 *
 * Return: 0 or -errno.
 */
int assemble_pack(const struct assemble_opts *o, const struct trace_demand *d,
		  struct sys_view *view, const struct rakb_state *ra, struct trace_summary *sum,
		  struct assemble_devices *ret_devs);

struct ura_pack_builder;

/**
 * assemble_build() - as assemble_pack(), but hand the built pack over instead of writing it
 * @ret: on success the builder, with everything added (free with ura_pack_builder_free())
 *
 * @o->pack is still the path the pack will be written to: that file is left
 * out of the pack. @sum->pack_written stays false.
 * Return: 0 or -errno (logged).
 */
int assemble_build(const struct assemble_opts *o, const struct trace_demand *d,
		   struct sys_view *view, const struct rakb_state *ra,
		   struct trace_summary *sum, struct ura_pack_builder **ret);

/**
 * assemble_keep_resident() - keep of @ranges only the pages of the file @fd now in the page cache
 * @fd: the file, open for reading, or -1 when it could not be opened
 * @size: the file's size (pages past it are dropped)
 * @ranges: malloc()ed, in page order; replaced on success
 * @n: its length; updated
 *
 * A range whose pages cannot be looked at (@fd < 0, mincore refused) is kept
 * whole.
 * Return: the pages kept, or -ENOMEM.
 */
long assemble_keep_resident(int fd, uint64_t size, struct pageset_range **ranges, size_t *n);

#endif
