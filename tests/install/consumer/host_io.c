/* SPDX-License-Identifier: Apache-2.0 */
/* Host I/O with the openvgf C API on the ADD fixture (inputs [1,4,4,1] and [1,4,4,4] FP32):
 * inputs of 1.5 in one pinned buffer, two runs in flight waited for in reverse order, then the
 * output kept on the device as the last input of a second model on the same device.
 * Usage: openvgf_c_host_io_example ADD_MODEL */
#include <openvgf/openvgf.h>

#include <stdio.h>

static const int64_t shape0[] = {1, 4, 4, 1};
static const int64_t shape1[] = {1, 4, 4, 4};

static int fail(openvgf_status* status) {
  int code = openvgf_status_exit_code(status);
  fprintf(stderr, "error: %s\n", openvgf_status_message(status));
  openvgf_status_free(status);
  return code;
}

static void print(const char* what, const float* y) {
  printf("%s: %g %g %g %g\n", what, y[0], y[1], y[2], y[3]);
}

int main(int argc, char** argv) {
  openvgf_model *first = NULL, *second = NULL;
  openvgf_session *session = NULL, *next = NULL;
  openvgf_session_options options;
  openvgf_run_options keep, feed;
  openvgf_pinned* pinned = NULL;
  openvgf_run *one = NULL, *two = NULL, *kept = NULL, *chained = NULL;
  openvgf_device_tensor* sum = NULL;
  const openvgf_device_tensor* device_inputs[2] = {NULL, NULL};
  openvgf_tensor inputs[2], outputs[2];
  float y[2][64], *x;
  int i;
  openvgf_status* status;
  if (argc != 2) {
    fprintf(stderr, "usage: %s ADD_MODEL\n", argv[0]);
    return 2;
  }
  if ((status = openvgf_model_open(argv[1], NULL, &first))) return fail(status);
  if ((status = openvgf_model_open_shared(argv[1], NULL, first, &second))) return fail(status);
  openvgf_session_options_init(&options);
  options.in_flight = 2;
  if ((status = openvgf_session_create(first, &options, &session))) return fail(status);
  if ((status = openvgf_session_create(second, NULL, &next))) return fail(status);
  /* Both inputs in one pinned buffer: a tensor whose data lies in it moves by DMA. */
  if ((status = openvgf_pinned_allocate(first, (16 + 64) * sizeof(float), &pinned))) return fail(status);
  x = openvgf_pinned_data(pinned);
  for (i = 0; i < 16 + 64; ++i) x[i] = 1.5f;
  inputs[0] = (openvgf_tensor){OPENVGF_FLOAT32, 4, shape0, x, 16 * sizeof(float)};
  inputs[1] = (openvgf_tensor){OPENVGF_FLOAT32, 4, shape1, x + 16, 64 * sizeof(float)};
  outputs[0] = (openvgf_tensor){OPENVGF_FLOAT32, 4, shape1, y[0], sizeof y[0]};
  outputs[1] = (openvgf_tensor){OPENVGF_FLOAT32, 4, shape1, y[1], sizeof y[1]};
  if ((status = openvgf_session_run_async(session, inputs, 2, &outputs[0], 1, NULL, &one))) return fail(status);
  if ((status = openvgf_session_run_async(session, inputs, 2, &outputs[1], 1, NULL, &two))) return fail(status);
  if ((status = openvgf_run_wait(two))) return fail(status);
  print("second run", y[1]);
  if ((status = openvgf_run_wait(one))) return fail(status);
  print("first run", y[0]);

  openvgf_run_options_init(&keep);
  keep.keep_on_device = 1; /* no outputs given: they stay on the device */
  if ((status = openvgf_session_run_async(session, inputs, 2, NULL, 0, &keep, &kept))) return fail(status);
  if ((status = openvgf_run_wait(kept))) return fail(status);
  if ((status = openvgf_run_device_output(kept, 0, &sum))) return fail(status);
  openvgf_run_options_init(&feed);
  device_inputs[1] = sum; /* replaces inputs[1]: copied on the device */
  feed.device_inputs = device_inputs;
  if ((status = openvgf_session_run_async(next, inputs, 2, &outputs[0], 1, &feed, &chained))) return fail(status);
  if ((status = openvgf_run_wait(chained))) return fail(status);
  print("chained", y[0]);

  openvgf_run_release(one);
  openvgf_run_release(two);
  openvgf_run_release(kept);
  openvgf_run_release(chained);
  openvgf_device_tensor_release(sum);
  openvgf_pinned_release(pinned);
  openvgf_session_release(next);
  openvgf_session_release(session);
  openvgf_model_release(second);
  openvgf_model_release(first);
  return 0;
}
