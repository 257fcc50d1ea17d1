# Sourced by the GPU-machine scripts of tools/gpu/ (first-light.sh, speed-round.sh,
# kernel-profile.sh): unpacks the build that tools/gpu/pack-build.sh carried over at the path it was
# built at, points LD_LIBRARY_PATH at the wheel's torch and nvidia libraries, and defines
# step NAME MAX_S COMMAND..., which runs a check with its own time limit inside the budget, so a
# failing or slow step does not stop the rest. Expects $out (log folder) and $budget_s; sets $ml,
# $B (the build), $log, $repo and $start_s.
repo=$(pwd)
start_s=$SECONDS
log=$out/${log_name:-first-light.log}
mkdir -p "$out" /work
ln -sfn "$repo" /work/main
# A machine kept warm between calls still holds the previous call's build: unpack again whenever
# the carried archive differs from the one unpacked there.
stamp=$(md5sum .gpucarry/build.tar.xz | cut -c1-32)
if [[ -f /work/gpubuild/build.ninja ]]; then  # the build tree itself (the CPU machine): never replaced
  echo "device-env.sh: /work/gpubuild is a build tree, not an unpacked carry; run this on the GPU machine" >&2
  exit 1
elif [[ "$(cat /work/gpubuild/.carry-stamp 2>/dev/null)" != "$stamp" ]]; then
  rm -rf /work/gpubuild && tar -xJf .gpucarry/build.tar.xz -C /work && echo "$stamp" >/work/gpubuild/.carry-stamp
fi
rm -rf .gpucarry/lib && tar -xJf .gpucarry/lib.tar.xz -C .gpucarry
site=$(python3 -c 'import torch,os;print(os.path.dirname(os.path.dirname(torch.__file__)))')
export LD_LIBRARY_PATH="$site/torch/lib:$site/nvidia/cu13/lib:$site/nvidia/nccl/lib:$site/nvidia/cudnn/lib:$repo/.gpucarry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_WAIT_POLICY=PASSIVE QT_QPA_PLATFORM=offscreen PYTHONUNBUFFERED=1
B=/work/gpubuild
ml=$B/app/cli/mixerlab

left() { echo $((budget_s - (SECONDS - start_s))); }
# step NAME MAX_S COMMAND...: runs when at least MAX_S/2 seconds are left, for at most MAX_S
step() {
  local name=$1 max=$2; shift 2
  if [[ -n "${SKIP:-}" && "$name" =~ ^(${SKIP})$ ]]; then echo "=== $name: skipped (SKIP)" >>"$log"; return; fi
  local l; l=$(left)
  if (( l < max / 2 )); then echo "=== $name: SKIPPED ($l s left)" | tee -a "$log"; return; fi
  (( max > l )) && max=$l
  echo "=== $name (at $((SECONDS - start_s)) s, limit $max s)" >>"$log"
  local t0=$SECONDS
  timeout -k 5 "$max" bash -c "$*" >>"$log" 2>&1
  echo "=== $name: rc $? in $((SECONDS - t0)) s" | tee -a "$log"
}
