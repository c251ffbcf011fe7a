/* SPDX-License-Identifier: Apache-2.0 */
/* Runs a model with the openvgf C API: every float input filled with 1.5, the first values
 * of each output printed. Usage: openvgf_c_example MODEL.{tosa,vgf,pte} */
#include <openvgf/openvgf.h>

#include <stdio.h>
#include <stdlib.h>

static int fail(openvgf_status* status) {
  int code = openvgf_status_exit_code(status);
  fprintf(stderr, "error: %s\n", openvgf_status_message(status));
  openvgf_status_free(status);
  return code;
}

int main(int argc, char** argv) {
  openvgf_model* model = NULL;
  openvgf_session* session = NULL;
  openvgf_status* status;
  openvgf_tensor* inputs;
  openvgf_tensor* outputs;
  size_t n_in, n_out, i, k;
  int code = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  status = openvgf_model_open(argv[1], NULL, &model); /* NULL: default options */
  if (status) return fail(status);
  status = openvgf_session_create(model, NULL, &session);
  if (status) {
    openvgf_model_release(model);
    return fail(status);
  }
  n_in = openvgf_model_input_count(model);
  n_out = openvgf_model_output_count(model);
  inputs = calloc(n_in, sizeof *inputs);
  outputs = calloc(n_out, sizeof *outputs);
  for (k = 0; k < n_in + n_out; ++k) {
    openvgf_tensor_info info;
    openvgf_tensor* t = k < n_in ? &inputs[k] : &outputs[k - n_in];
    if (k < n_in) openvgf_model_input(model, k, &info);
    else openvgf_model_output(model, k - n_in, &info);
    t->dtype = info.dtype;
    t->rank = info.rank;
    t->shape = info.shape; /* valid while the model lives */
    t->byte_size = info.byte_size;
    t->data = calloc(1, info.byte_size ? info.byte_size : 1);
    if (k < n_in && info.dtype == OPENVGF_FLOAT32) {
      for (i = 0; i < info.byte_size / sizeof(float); ++i) ((float*)t->data)[i] = 1.5f;
    }
  }
  status = openvgf_session_run(session, inputs, n_in, outputs, n_out);
  if (status) {
    code = fail(status);
  } else {
    printf("device: %s\n", openvgf_model_device_name(model));
    for (k = 0; k < n_out; ++k) {
      openvgf_tensor_info info;
      openvgf_model_output(model, k, &info);
      printf("%s %s:", info.name, openvgf_dtype_name(info.dtype));
      for (i = 0; i < 4 && i < info.byte_size / sizeof(float); ++i) {
        if (info.dtype == OPENVGF_FLOAT32) printf(" %g", ((const float*)outputs[k].data)[i]);
      }
      printf("\n");
    }
  }
  for (k = 0; k < n_in; ++k) free(inputs[k].data);
  for (k = 0; k < n_out; ++k) free(outputs[k].data);
  free(inputs);
  free(outputs);
  openvgf_session_release(session);
  openvgf_model_release(model);
  return code;
}
