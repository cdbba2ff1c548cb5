/* Exercises the whole Interstice C ABI (interstice.h) against a live
 * intersticed with the `plugin` backend and 8 processors.
 *
 * usage: ffi_client DAEMON_SOCKET SILENT_SOCKET
 *   SILENT_SOCKET accepts connections and never answers (timeout checks).
 * Prints one line per check; exits 0 when every check passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interstice.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		checks++;                                                  \
		if (cond) {                                                \
			printf("ok   %s\n", #cond);                        \
		} else {                                                   \
			failures++;                                        \
			printf("FAIL %s (line %d): ", #cond, __LINE__);    \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
		}                                                          \
	} while (0)

#define CHECK_RESULT(call, expected)                                                  \
	do {                                                                          \
		interstice_result got_ = (call);                                      \
		CHECK(got_ == (expected), "%s returned %s, expected %s", #call,       \
		      interstice_result_name(got_), interstice_result_name(expected)); \
	} while (0)

static double now_seconds(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_seconds(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: %s DAEMON_SOCKET SILENT_SOCKET\n", argv[0]);
		return 2;
	}
	const char *socket_path = argv[1];
	const char *silent_path = argv[2];
	struct interstice_client *client = NULL;

	/* --- handle creation: arguments are checked, out-pointer untouched on error */
	CHECK_RESULT(interstice_client_new(NULL, 1000, &client), INTERSTICE_RESULT_NULL_ARGUMENT);
	CHECK_RESULT(interstice_client_new(socket_path, 1000, NULL), INTERSTICE_RESULT_NULL_ARGUMENT);
	CHECK_RESULT(interstice_client_new(socket_path, 0, &client), INTERSTICE_RESULT_INVALID_ARGUMENT);
	CHECK(client == NULL, "client written on failure");
	CHECK_RESULT(interstice_client_new(socket_path, 2000, &client), INTERSTICE_RESULT_OK);
	CHECK(client != NULL, "no client");
	if (!client)
		return 1;
	CHECK(strcmp(INTERSTICE_FFI_VERSION, "0.1.0") == 0, "version %s", INTERSTICE_FFI_VERSION);
	CHECK(strcmp(interstice_result_name(INTERSTICE_RESULT_TIMEOUT), "INTERSTICE_RESULT_TIMEOUT") == 0, "name");
	/* total: any int names something static, never a wild pointer */
	CHECK(strcmp(interstice_result_name(99), "INTERSTICE_RESULT_UNKNOWN") == 0, "name of 99");
	CHECK(strcmp(interstice_result_name(-1), "INTERSTICE_RESULT_UNKNOWN") == 0, "name of -1");

	/* --- health */
	CHECK_RESULT(interstice_client_health(client), INTERSTICE_RESULT_OK);

	/* --- an HPC job takes processors 0-5 */
	uint32_t evicted = 12345;
	struct interstice_job_event event = {
		.kind = INTERSTICE_EVENT_KIND_STARTED,
		.job_id = "c-hpc-1",
		.procs = 6,
		.walltime_seconds = 600.0,
		.time = -1.0,
		.cpus = "0-5",
	};
	CHECK_RESULT(interstice_client_report_event(client, &event, &evicted), INTERSTICE_RESULT_OK);
	CHECK(evicted == 0, "evicted %u", evicted);

	/* --- slots: 2 processors idle now, 0-5 free again at the HPC job's limit */
	struct interstice_slots *slots = NULL;
	CHECK_RESULT(interstice_client_slots(client, &slots), INTERSTICE_RESULT_OK);
	double wall = wall_seconds();
	CHECK(fabs(interstice_slots_now(slots) - wall) < 60.0, "now %f vs %f", interstice_slots_now(slots), wall);
	CHECK(interstice_slots_immediate_len(slots) == 2, "immediate %zu", interstice_slots_immediate_len(slots));
	struct interstice_immediate_slot idle = {0};
	CHECK_RESULT(interstice_slots_immediate_get(slots, 0, &idle), INTERSTICE_RESULT_OK);
	CHECK(idle.proc_index == 6 || idle.proc_index == 7, "idle proc %u", idle.proc_index);
	CHECK_RESULT(interstice_slots_immediate_get(slots, 2, &idle), INTERSTICE_RESULT_OUT_OF_RANGE);
	CHECK(interstice_slots_future_len(slots) >= 1, "future %zu", interstice_slots_future_len(slots));
	struct interstice_future_slot hole = {0};
	CHECK_RESULT(interstice_slots_future_get(slots, 0, &hole), INTERSTICE_RESULT_OK);
	CHECK(hole.procs != NULL && strlen(hole.procs) > 0, "future procs text");
	CHECK(hole.start > wall + 500.0, "future hole starts at %f, now %f", hole.start, wall);
	CHECK_RESULT(interstice_slots_future_get(slots, 99, &hole), INTERSTICE_RESULT_OUT_OF_RANGE);
	CHECK(interstice_slots_immediate_len(NULL) == 0, "NULL slots length");
	interstice_slots_free(slots);
	interstice_slots_free(NULL);

	/* --- predictions: 2 x 60 s fits the hole; 4 x 60 s within 90 s does not */
	struct interstice_predict_request fits = {.procs = 2, .walltime_seconds = 60.0, .slo_seconds = 120.0, .admission = true};
	struct interstice_prediction prediction = {0};
	CHECK_RESULT(interstice_client_predict(client, &fits, &prediction), INTERSTICE_RESULT_OK);
	CHECK(prediction.accepted, "2x60s/120s rejected");
	CHECK(prediction.has_predicted_start && prediction.has_predicted_completion, "times missing");
	CHECK(prediction.predicted_completion - prediction.predicted_start > 59.0, "duration");
	CHECK(prediction.predicted_completion <= wall_seconds() + 120.0, "completion %f", prediction.predicted_completion);

	struct interstice_predict_request too_tight = {.procs = 4, .walltime_seconds = 60.0, .slo_seconds = 90.0, .admission = true};
	CHECK_RESULT(interstice_client_predict(client, &too_tight, &prediction), INTERSTICE_RESULT_OK);
	CHECK(!prediction.accepted, "4x60s/90s accepted");
	CHECK(prediction.has_counter_offer_slo && prediction.counter_offer_slo_seconds > 600.0, "counter-offer %d %f",
	      prediction.has_counter_offer_slo, prediction.counter_offer_slo_seconds);
	CHECK(prediction.has_violation_seconds && prediction.violation_seconds > 0.0, "violation");

	/* --- bad arguments are refused locally, with the reason in the last error */
	struct interstice_prediction untouched = {.accepted = true, .predicted_start = 42.0};
	struct interstice_predict_request zero = {.procs = 0, .walltime_seconds = 60.0, .slo_seconds = 90.0};
	CHECK_RESULT(interstice_client_predict(client, &zero, &untouched), INTERSTICE_RESULT_INVALID_ARGUMENT);
	CHECK(untouched.accepted && untouched.predicted_start == 42.0, "output written on failure");
	char message[256];
	size_t length = 0;
	CHECK_RESULT(interstice_client_last_error(client, message, sizeof message, &length), INTERSTICE_RESULT_OK);
	CHECK(strstr(message, "procs") != NULL && length == strlen(message), "last error %s", message);
	char small[6];
	CHECK_RESULT(interstice_client_last_error(client, small, sizeof small, &length), INTERSTICE_RESULT_BUFFER_TOO_SMALL);
	CHECK(strlen(small) == 5 && length > 5, "truncated %s %zu", small, length);
	CHECK_RESULT(interstice_client_predict(client, NULL, &prediction), INTERSTICE_RESULT_NULL_ARGUMENT);
	struct interstice_job_event no_id = event;
	no_id.job_id = NULL;
	CHECK_RESULT(interstice_client_report_event(client, &no_id, NULL), INTERSTICE_RESULT_NULL_ARGUMENT);

	/* --- the daemon's own refusals come back as HTTP errors with its text */
	struct interstice_predict_request too_wide = {.procs = 1000, .walltime_seconds = 60.0, .slo_seconds = 90.0};
	CHECK_RESULT(interstice_client_predict(client, &too_wide, &prediction), INTERSTICE_RESULT_HTTP);
	interstice_client_last_error(client, message, sizeof message, NULL);
	CHECK(strstr(message, "1000") != NULL, "daemon error text %s", message);

	/* --- the HPC job ends: all 8 processors idle again */
	event.kind = INTERSTICE_EVENT_KIND_ENDED;
	CHECK_RESULT(interstice_client_report_event(client, &event, NULL), INTERSTICE_RESULT_OK);
	CHECK_RESULT(interstice_client_slots(client, &slots), INTERSTICE_RESULT_OK);
	CHECK(interstice_slots_immediate_len(slots) == 8, "immediate after end %zu", interstice_slots_immediate_len(slots));
	interstice_slots_free(slots);
	interstice_client_free(client);
	interstice_client_free(NULL);

	/* --- unreachable daemon: a connect error naming the socket */
	struct interstice_client *missing = NULL;
	CHECK_RESULT(interstice_client_new("/nonexistent/interstice.sock", 100, &missing), INTERSTICE_RESULT_OK);
	CHECK_RESULT(interstice_client_health(missing), INTERSTICE_RESULT_CONNECT);
	interstice_client_last_error(missing, message, sizeof message, NULL);
	CHECK(strstr(message, "/nonexistent/interstice.sock") != NULL, "connect error %s", message);
	interstice_client_free(missing);

	/* --- a daemon that never answers: a timeout within the bound */
	struct interstice_client *silent = NULL;
	CHECK_RESULT(interstice_client_new(silent_path, 100, &silent), INTERSTICE_RESULT_OK);
	double before = now_seconds();
	CHECK_RESULT(interstice_client_predict(silent, &fits, &prediction), INTERSTICE_RESULT_TIMEOUT);
	double took = now_seconds() - before;
	CHECK(took < 1.0, "timeout took %f s", took);
	interstice_client_free(silent);

	printf("%d checks, %d failed\n", checks, failures);
	return failures == 0 ? 0 : 1;
}
