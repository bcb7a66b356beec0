# realroot-timeout: 600
# A build switch of PyTorch on NVIDIA (issue 35, item 4): `--set
# torch_cuda=cu126` on a venv holding torch 2.14.1+cu130 is the advice doctor
# gives for Pascal and Volta GPUs, and it must change the venv, not be a
# no-op because the version number before the local label is the same:
#   - install pytorch with the driver's row (cu130): T1, the three +cu130;
#   - plan with torch_cuda=cu126 names the switch of torch, and the
#     download it takes, asked of the server;
#   - install with torch_cuda=cu126: T2; torch, torchvision and torchaudio
#     are all +cu126 (a torchvision built for cu130 would pin the old torch),
#     torch.version.cuda is 12.6; a rerun is converged;
#   - with no network, the rollback of T2 gives the +cu130 three back,
#     the same `pip list` as after T1; the rollback of T1 leaves the root
#     as before.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root cuda_build_switch_reinstalls_the_three
}

# build_freeze: the venv's torch, torchvision and torchaudio as pip lists them.
build_freeze() {
  as_user_login "$PYTORCH_VENV/bin/python -m pip list --disable-pip-version-check --format=freeze" >/dev/null ||
    fail "pip list failed in the venv"
  grep -E '^torch(vision|audio)?==' <<<"$LAST_OUTPUT" | sort
}

cuda_build_switch_reinstalls_the_three() {
  local tmp=$REALROOT_SCENARIO_TMP sets sets126 t1 t2
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  pytorch_www
  mapfile -t sets < <(pytorch_cuda_args)
  mapfile -t sets126 < <(pytorch_cuda_args --set torch_cuda=cu126)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch with the driver's row (T1)"
  t1=$(newest_transaction)
  local freeze1
  freeze1=$(build_freeze)
  assert_eq "$freeze1" $'torch==2.14.1+cu130\ntorchaudio==2.14.1+cu130\ntorchvision==0.29.1+cu130' "pip list after T1"

  tool --root "$ROOT" "${sets126[@]}" plan pytorch --detailed-exitcode
  assert_status 10 "plan pytorch with torch_cuda=cu126 over a cu130 venv (changes pending, not a no-op)"
  assert_contains "$TOOL_OUT" 'torch 2\.14\.1\+cu130 → 2\.14\.1\+cu126|torch .*cu130.*cu126' "plan: the switch of torch's build"
  assert_contains "$TOOL_OUT" 'downloads [0-9.]+ [kMG]?B \([0-9]+ wheels?' "plan: the bytes to download, asked of the server"

  tool --root "$ROOT" "${sets126[@]}" install pytorch --yes
  assert_status 0 "install pytorch with torch_cuda=cu126 (T2)"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch with torch_cuda=cu126"
  t2=$(newest_transaction)
  [[ $t2 != "$t1" ]] || fail "the switch recorded no transaction of its own: $t2"
  assert_eq "$(build_freeze)" $'torch==2.14.1+cu126\ntorchaudio==2.14.1+cu126\ntorchvision==0.29.1+cu126' "pip list after the switch to cu126: the three of one build"
  as_user_login "$PYTORCH_VENV/bin/python -c 'import torch; print(torch.version.cuda)'" || fail "import torch failed after the switch"
  assert_eq "$LAST_OUTPUT" 12.6 "torch.version.cuda after the switch"
  tool --root "$ROOT" "${sets126[@]}" plan pytorch --detailed-exitcode
  assert_status 0 "plan pytorch with torch_cuda=cu126 after the switch (converged)"

  network_off
  tool --root "$ROOT" rollback "$t2" --yes
  assert_status 0 "rollback of the switch with the network down"
  assert_eq "$(build_freeze)" "$freeze1" "pip list after the rollback of the switch"
  tool --root "$ROOT" rollback "$t1" --yes
  assert_status 0 "rollback of T1"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "the rollbacks left the root different from before T1"
}
