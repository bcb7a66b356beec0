# The proxy variables reach pip as they reach the tool's own downloads: the
# fake download.pytorch.org (serve_https) answers 403 to anything that
# reaches it directly, and only the loopback proxy's tunnels (serve_proxy,
# from 127.0.0.5) get through. `install pytorch` is run with https_proxy
# set, as a user behind a company proxy runs it:
#   - first, pip run by hand in a venv of the user, without the variable,
#     is refused (403): the check below cannot pass by a direct connection;
#   - plan (the tool's index and size questions) and install (the tool's
#     own wheel downloads, then pip's resolve against the index) commit;
#   - the proxy saw the tunnels, and the server logged no 403 during the
#     install: pip went through the proxy too.
# With pip_command (steps/python/pip_run.cpp) not passing the variables,
# pip's index requests reach the server directly, get 403, and the install
# fails and rolls back.

scenario() {
  require_tool_command install
  require_step_kinds python_venv python_packages
  with_root proxy_variables_reach_pip
}

proxy_variables_reach_pip() {
  local sets refused_before
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  REALROOT_HTTPS_ONLY_FROM=127.0.0.5 pytorch_www
  serve_proxy
  mapfile -t sets < <(pytorch_cuda_args)

  # Without the proxy, the server refuses: pip by hand, as the user.
  in_root runuser -u "$REALROOT_USER" -- python3 -m venv /tmp/direct || fail "python3 -m venv failed in the root"
  if in_root runuser -u "$REALROOT_USER" -- /tmp/direct/bin/python -m pip download --no-deps -d /tmp/direct/dl \
    --index-url "$HTTPS_URL/pypi" numpy==2.1.0 >"$REALROOT_SCENARIO_TMP/direct.log" 2>&1; then
    fail "pip reached the server without the proxy: $(cat "$REALROOT_SCENARIO_TMP/direct.log")"
  fi
  assert_contains "$(cat "$REALROOT_SCENARIO_TMP/https.log")" '" 403 ' "the server's log: pip without the proxy was refused"
  refused_before=$(grep -c '" 403 ' "$REALROOT_SCENARIO_TMP/https.log")

  https_proxy=$PROXY_URL tool --root "$ROOT" "${sets[@]}" plan pytorch
  assert_status 0 "plan pytorch through the proxy"
  https_proxy=$PROXY_URL tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch through the proxy"
  assert_contains "$TOOL_OUT" 'committed' "install pytorch through the proxy"

  assert_contains "$(cat "$PROXY_LOG")" "^CONNECT 127.0.0.1:8443\$" "the proxy's log: tunnels to the server"
  assert_eq "$(grep -c '" 403 ' "$REALROOT_SCENARIO_TMP/https.log")" "$refused_before" \
    "403s in the server's log after the install (a request that did not go through the proxy)"
  [[ -f $ROOT$PYTORCH_VENV/lib/python$PYTORCH_PYTHON/site-packages/torchvision-0.29.1+$PYTORCH_CUDA_INDEX.dist-info/METADATA ]] ||
    fail "torchvision (which pip resolves from the index) is not installed"
}
