/* Accessors for the few job_desc_msg_t fields job_submit/interstice needs.
 *
 * Why a C shim instead of Rust bindings: job_desc_msg_t is large and changes
 * between Slurm releases; compiling this file against the installed slurm.h
 * keeps the field offsets right for whatever Slurm the plugin is built for.
 *
 * Slurm's allocator and logger live in the host process (slurmctld), not in a
 * library we link: they are declared weak here, so unit tests link without
 * Slurm and the plugin resolves them at dlopen. Strings handed to Slurm are
 * allocated with slurm_xstrdup and old ones released with slurm_xfree, because
 * slurmctld frees job_desc fields with xfree.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <slurm/slurm.h>

extern char *slurm_xstrdup(const char *str) __attribute__((weak));
/* Slurm < 21.08 takes (ptr, file, line, func), newer releases only (ptr); passing
 * all four is correct for both under the C calling convention. */
extern void slurm_xfree(void **item, const char *file, int line, const char *func) __attribute__((weak));
extern void slurm_info(const char *fmt, ...) __attribute__((weak));
extern void slurm_error(const char *fmt, ...) __attribute__((weak));

static int replace_string(char **field, const char *value) {
	char *copy = NULL;
	if (value) {
		if (!slurm_xstrdup)
			return -1;
		copy = slurm_xstrdup(value);
		if (!copy)
			return -1;
	}
	if (*field && slurm_xfree)
		slurm_xfree((void **)field, __FILE__, __LINE__, __func__);
	*field = copy;
	return 0;
}

int isx_have_slurm_allocator(void) { return slurm_xstrdup != NULL && slurm_xfree != NULL; }

void isx_log_info(const char *message) {
	if (slurm_info)
		slurm_info("%s", message);
	else
		fprintf(stderr, "%s\n", message);
}

void isx_log_error(const char *message) {
	if (slurm_error)
		slurm_error("%s", message);
	else
		fprintf(stderr, "%s\n", message);
}

char *isx_xstrdup(const char *text) { return slurm_xstrdup ? slurm_xstrdup(text) : NULL; }

const char *isx_partition(const job_desc_msg_t *d) { return d->partition; }
int isx_set_partition(job_desc_msg_t *d, const char *v) { return replace_string(&d->partition, v); }
const char *isx_qos(const job_desc_msg_t *d) { return d->qos; }
int isx_set_qos(job_desc_msg_t *d, const char *v) { return replace_string(&d->qos, v); }
const char *isx_comment(const job_desc_msg_t *d) { return d->comment; }
int isx_set_comment(job_desc_msg_t *d, const char *v) { return replace_string(&d->comment, v); }
const char *isx_name(const job_desc_msg_t *d) { return d->name; }

uint32_t isx_time_limit(const job_desc_msg_t *d) { return d->time_limit; }
void isx_set_time_limit(job_desc_msg_t *d, uint32_t minutes) { d->time_limit = minutes; }
int64_t isx_deadline(const job_desc_msg_t *d) { return (int64_t)d->deadline; }
void isx_set_deadline(job_desc_msg_t *d, int64_t t) { d->deadline = (time_t)t; }
uint32_t isx_min_cpus(const job_desc_msg_t *d) { return d->min_cpus; }
uint32_t isx_num_tasks(const job_desc_msg_t *d) { return d->num_tasks; }
uint32_t isx_cpus_per_task(const job_desc_msg_t *d) { return d->cpus_per_task; }
uint32_t isx_min_nodes(const job_desc_msg_t *d) { return d->min_nodes; }
uint32_t isx_no_val(void) { return NO_VAL; }
uint16_t isx_no_val16(void) { return NO_VAL16; }

uint32_t isx_env_size(const job_desc_msg_t *d) { return d->environment ? d->env_size : 0; }
const char *isx_env(const job_desc_msg_t *d, uint32_t i) {
	return (d->environment && i < d->env_size) ? d->environment[i] : NULL;
}
uint32_t isx_spank_env_size(const job_desc_msg_t *d) { return d->spank_job_env ? d->spank_job_env_size : 0; }
const char *isx_spank_env(const job_desc_msg_t *d, uint32_t i) {
	return (d->spank_job_env && i < d->spank_job_env_size) ? d->spank_job_env[i] : NULL;
}
