// SPDX-License-Identifier: Apache-2.0
// The Vela-compiled third-party models in tests/data/ethosu/<network>/<folder>/ (origin in
// third_party_notes.md) as the vela_bin_stream files `openvgf run` reads: each .tflite is
// repackaged by tests/ethosu/tflite_to_ethosu.py into a scratch folder.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace openvgf::ethosu_test {

inline std::filesystem::path velaDataFolder(const std::string& network, const std::string& folder) {
  return std::filesystem::path(OPENVGF_TEST_DATA) / "ethosu" / network / folder;
}

/// Writes `<outDir>/<network>_<model>.ethosu` from `<network>/<folder>/<model>.tflite`; returns
/// its path, or an empty path when the script failed.
inline std::filesystem::path repackageVelaModel(const std::string& network, const std::string& folder,
                                                const std::string& model, const std::filesystem::path& outDir) {
  const std::filesystem::path script = std::filesystem::path(OPENVGF_TEST_DATA).parent_path() / "ethosu" / "tflite_to_ethosu.py";
  const std::filesystem::path out = outDir / (network + "_" + model + ".ethosu");
  const std::string command = std::string(OPENVGF_TEST_PYTHON) + " " + script.string() + " " +
                              (velaDataFolder(network, folder) / (model + ".tflite")).string() + " " + out.string();
  return std::system(command.c_str()) == 0 ? out : std::filesystem::path{};
}

}  // namespace openvgf::ethosu_test
