set -e
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
J=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; [ -f $J ] && export VK_DRIVER_FILES=$J
W=/tmp/w; mkdir -p $W; export XDG_CACHE_HOME="$W/cache"
B=build/bundle
$B/openvgf-zoo --out $W/zoo --models matmul_4096_fp32,matmul_4096_fp16,matmul_1024_fp32 >/dev/null
$B/openvgf-zoo --out $W/zoo --models resnet50 --batch 32 >/dev/null
O=OPENVGF_EXPERIMENT_DEFINES=CM_EXP_OLDSPLIT
g() { "$B/openvgf" bench "$1" --iterations 20 --gpu-iterations 20 2>&1 | grep -iE "gpu" | head -2 | tr '\n' ' '; echo; }
for r in 1 2; do
  for v in new old; do
    if [ $v = old ]; then E=$O; else E=X=1; fi
    env $E $B/openvgf -q convert $W/zoo/matmul_4096_fp32.tosa --target native --precision fp16x3 -o $W/x3-$v.vgf
    echo -n "fp16x3 matmul_4096 $v: "; g $W/x3-$v.vgf
  done
done
for v in new old; do
  if [ $v = old ]; then E=$O; else E=X=1; fi
  env $E $B/openvgf -q convert $W/zoo/resnet50_b32.tosa --target native --precision fp16x3 -o $W/r-$v.vgf
  echo -n "fp16x3 resnet50_b32 $v: "; g $W/r-$v.vgf
done
$B/openvgf -q convert $W/zoo/matmul_1024_fp32.tosa --target native --precision fp16x3 -o $W/c.vgf
$B/openvgf run $W/c.vgf -i $W/zoo/matmul_1024_fp32/inputs/a.npy -i $W/zoo/matmul_1024_fp32/inputs/b.npy --check $W/zoo/matmul_1024_fp32.tosa 2>&1 | tail -2 || ls $W/zoo/matmul_1024_fp32/inputs
for t in "" "coopmat-acc16=2x2/64x128/32/1" "coopmat-acc16=4x2/64x128/16/1" "coopmat-acc16=2x4/64x128/16/1" "coopmat-acc16=4x2/64x128/32/1" ""; do
  OPENVGF_TUNING="$t" $B/openvgf -q convert $W/zoo/matmul_4096_fp16.tosa --target native -o $W/h.vgf
  echo -n "fp16 matmul_4096 [$t]: "; g $W/h.vgf
done
