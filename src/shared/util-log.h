/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tool logging: "prog: message" on stderr, filtered by -v/-q */
#ifndef URA_UTIL_LOG_H
#define URA_UTIL_LOG_H

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Messages at or below @level are printed; the default is LOG_LVL_INFO. */
void log_set_level(int level);
int log_get_level(void);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)	log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
