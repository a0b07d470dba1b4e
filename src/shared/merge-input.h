/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a merge reads: a parsed pack or a builder not written yet, through one set of getters */
#ifndef URA_MERGE_INPUT_H
#define URA_MERGE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "ura/pack.h"

/*
 * One input of merge_inputs(): exactly one of the two is set. A builder is read
 * as the pack it would write, without encoding it (the learning daemon's new
 * runs); merge_input_prepare() puts its ranges as that pack stores them.
 */
struct merge_input {
	const struct ura_pack *pack;
	struct ura_pack_builder *builder;
};

/*
 * merge_input_prepare() - make @in readable as its pack: a builder's ranges
 * each page once, by first access (ura_pack_builder_normalize()); nothing for a pack
 * Return: 0, -EINVAL (neither or both set), -E2BIG, -ENOMEM.
 */
int merge_input_prepare(const struct merge_input *in);

/*
 * The getters: as ura_pack_runs(), ura_pack_get_run(), ... of the pack, or
 * their ura_pack_builder_*() twins. Range, metadata and pending getters also
 * give the run mask (as ura_pack_get_range_support()). Return: 0 or -ERANGE.
 */
size_t merge_input_runs(const struct merge_input *in);
int merge_input_get_run(const struct merge_input *in, size_t index, int64_t *ret_created_ns,
			uint64_t *ret_duration_ns);
void merge_input_get_info(const struct merge_input *in, struct ura_pack_info *ret);
size_t merge_input_fs_count(const struct merge_input *in);
int merge_input_get_fs(const struct merge_input *in, size_t index, struct ura_pack_fs *ret);
size_t merge_input_file_count(const struct merge_input *in);
int merge_input_get_file(const struct merge_input *in, size_t index, struct ura_pack_file *ret);
size_t merge_input_range_count(const struct merge_input *in);
int merge_input_get_range(const struct merge_input *in, size_t index, struct ura_pack_range *ret,
			  uint64_t *ret_mask);
size_t merge_input_pending_count(const struct merge_input *in);
int merge_input_get_pending(const struct merge_input *in, size_t index,
			    struct ura_pack_range *ret, uint64_t *ret_mask);
size_t merge_input_meta_count(const struct merge_input *in);
int merge_input_get_meta(const struct merge_input *in, size_t index, struct ura_pack_meta *ret,
			 uint64_t *ret_mask);

#endif
