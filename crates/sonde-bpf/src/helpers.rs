//! BPF helper function ids (`enum bpf_func_id` in the kernel's include/uapi/linux/bpf.h) and their
//! names, so codegen can say `call(helper::MAP_LOOKUP_ELEM)` and the disassembler can print
//! `call bpf_map_lookup_elem#1` like the verifier log does.

/// `flags` of bpf_map_update_elem, the helper's and the bpf(2) command's (uapi `BPF_ANY`...).
pub mod map_update {
    /// Create the element or replace it.
    pub const BPF_ANY: u64 = 0;
    /// Create the element only where there is none.
    pub const BPF_NOEXIST: u64 = 1;
    /// Replace the element only where there is one.
    pub const BPF_EXIST: u64 = 2;
}

/// The helper ids sonde emits calls to. Values are kernel ABI and never change.
pub mod helper {
    pub const MAP_LOOKUP_ELEM: u32 = 1;
    pub const MAP_UPDATE_ELEM: u32 = 2;
    pub const MAP_DELETE_ELEM: u32 = 3;
    pub const PROBE_READ: u32 = 4;
    pub const KTIME_GET_NS: u32 = 5;
    pub const TRACE_PRINTK: u32 = 6;
    pub const GET_PRANDOM_U32: u32 = 7;
    pub const GET_SMP_PROCESSOR_ID: u32 = 8;
    pub const GET_CURRENT_PID_TGID: u32 = 14;
    pub const GET_CURRENT_UID_GID: u32 = 15;
    pub const GET_CURRENT_COMM: u32 = 16;
    pub const PERF_EVENT_OUTPUT: u32 = 25;
    pub const GET_STACKID: u32 = 27;
    pub const GET_CURRENT_TASK: u32 = 35;
    pub const PROBE_READ_STR: u32 = 45;
    pub const PROBE_READ_USER: u32 = 112;
    pub const PROBE_READ_KERNEL: u32 = 113;
    pub const PROBE_READ_USER_STR: u32 = 114;
    pub const PROBE_READ_KERNEL_STR: u32 = 115;
    pub const GET_NS_CURRENT_PID_TGID: u32 = 120;
    pub const KTIME_GET_BOOT_NS: u32 = 125;
    pub const SEQ_PRINTF: u32 = 126;
    pub const RINGBUF_OUTPUT: u32 = 130;
    pub const RINGBUF_RESERVE: u32 = 131;
    pub const RINGBUF_SUBMIT: u32 = 132;
    pub const RINGBUF_DISCARD: u32 = 133;
    pub const PER_CPU_PTR: u32 = 153;
    pub const THIS_CPU_PTR: u32 = 154;
    pub const GET_CURRENT_TASK_BTF: u32 = 158;
    pub const FOR_EACH_MAP_ELEM: u32 = 164;
    pub const GET_FUNC_IP: u32 = 173;
    pub const LOOP: u32 = 181;
    pub const GET_ATTACH_COOKIE: u32 = 174;
    pub const KTIME_GET_TAI_NS: u32 = 208;
    pub const GET_FUNC_ARG: u32 = 183;
    pub const GET_FUNC_RET: u32 = 184;
    pub const MAP_LOOKUP_PERCPU_ELEM: u32 = 195;
}

/// `bpf_<name>` for a helper id, as the verifier prints it; `None` for 0 (unspec) and ids newer
/// than this table. The whole kernel table (up to 211, v6.2+) is here, not just the ids above,
/// so disassembling any program gives names.
pub fn helper_name(id: u32) -> Option<&'static str> {
    if id == 0 {
        return None;
    }
    NAMES.get(id as usize).copied()
}

/// Index = helper id, in `___BPF_FUNC_MAPPER` order.
const NAMES: &[&str] = &[
    "bpf_unspec",
    "bpf_map_lookup_elem",
    "bpf_map_update_elem",
    "bpf_map_delete_elem",
    "bpf_probe_read",
    "bpf_ktime_get_ns",
    "bpf_trace_printk",
    "bpf_get_prandom_u32",
    "bpf_get_smp_processor_id",
    "bpf_skb_store_bytes",
    "bpf_l3_csum_replace",
    "bpf_l4_csum_replace",
    "bpf_tail_call",
    "bpf_clone_redirect",
    "bpf_get_current_pid_tgid",
    "bpf_get_current_uid_gid",
    "bpf_get_current_comm",
    "bpf_get_cgroup_classid",
    "bpf_skb_vlan_push",
    "bpf_skb_vlan_pop",
    "bpf_skb_get_tunnel_key",
    "bpf_skb_set_tunnel_key",
    "bpf_perf_event_read",
    "bpf_redirect",
    "bpf_get_route_realm",
    "bpf_perf_event_output",
    "bpf_skb_load_bytes",
    "bpf_get_stackid",
    "bpf_csum_diff",
    "bpf_skb_get_tunnel_opt",
    "bpf_skb_set_tunnel_opt",
    "bpf_skb_change_proto",
    "bpf_skb_change_type",
    "bpf_skb_under_cgroup",
    "bpf_get_hash_recalc",
    "bpf_get_current_task",
    "bpf_probe_write_user",
    "bpf_current_task_under_cgroup",
    "bpf_skb_change_tail",
    "bpf_skb_pull_data",
    "bpf_csum_update",
    "bpf_set_hash_invalid",
    "bpf_get_numa_node_id",
    "bpf_skb_change_head",
    "bpf_xdp_adjust_head",
    "bpf_probe_read_str",
    "bpf_get_socket_cookie",
    "bpf_get_socket_uid",
    "bpf_set_hash",
    "bpf_setsockopt",
    "bpf_skb_adjust_room",
    "bpf_redirect_map",
    "bpf_sk_redirect_map",
    "bpf_sock_map_update",
    "bpf_xdp_adjust_meta",
    "bpf_perf_event_read_value",
    "bpf_perf_prog_read_value",
    "bpf_getsockopt",
    "bpf_override_return",
    "bpf_sock_ops_cb_flags_set",
    "bpf_msg_redirect_map",
    "bpf_msg_apply_bytes",
    "bpf_msg_cork_bytes",
    "bpf_msg_pull_data",
    "bpf_bind",
    "bpf_xdp_adjust_tail",
    "bpf_skb_get_xfrm_state",
    "bpf_get_stack",
    "bpf_skb_load_bytes_relative",
    "bpf_fib_lookup",
    "bpf_sock_hash_update",
    "bpf_msg_redirect_hash",
    "bpf_sk_redirect_hash",
    "bpf_lwt_push_encap",
    "bpf_lwt_seg6_store_bytes",
    "bpf_lwt_seg6_adjust_srh",
    "bpf_lwt_seg6_action",
    "bpf_rc_repeat",
    "bpf_rc_keydown",
    "bpf_skb_cgroup_id",
    "bpf_get_current_cgroup_id",
    "bpf_get_local_storage",
    "bpf_sk_select_reuseport",
    "bpf_skb_ancestor_cgroup_id",
    "bpf_sk_lookup_tcp",
    "bpf_sk_lookup_udp",
    "bpf_sk_release",
    "bpf_map_push_elem",
    "bpf_map_pop_elem",
    "bpf_map_peek_elem",
    "bpf_msg_push_data",
    "bpf_msg_pop_data",
    "bpf_rc_pointer_rel",
    "bpf_spin_lock",
    "bpf_spin_unlock",
    "bpf_sk_fullsock",
    "bpf_tcp_sock",
    "bpf_skb_ecn_set_ce",
    "bpf_get_listener_sock",
    "bpf_skc_lookup_tcp",
    "bpf_tcp_check_syncookie",
    "bpf_sysctl_get_name",
    "bpf_sysctl_get_current_value",
    "bpf_sysctl_get_new_value",
    "bpf_sysctl_set_new_value",
    "bpf_strtol",
    "bpf_strtoul",
    "bpf_sk_storage_get",
    "bpf_sk_storage_delete",
    "bpf_send_signal",
    "bpf_tcp_gen_syncookie",
    "bpf_skb_output",
    "bpf_probe_read_user",
    "bpf_probe_read_kernel",
    "bpf_probe_read_user_str",
    "bpf_probe_read_kernel_str",
    "bpf_tcp_send_ack",
    "bpf_send_signal_thread",
    "bpf_jiffies64",
    "bpf_read_branch_records",
    "bpf_get_ns_current_pid_tgid",
    "bpf_xdp_output",
    "bpf_get_netns_cookie",
    "bpf_get_current_ancestor_cgroup_id",
    "bpf_sk_assign",
    "bpf_ktime_get_boot_ns",
    "bpf_seq_printf",
    "bpf_seq_write",
    "bpf_sk_cgroup_id",
    "bpf_sk_ancestor_cgroup_id",
    "bpf_ringbuf_output",
    "bpf_ringbuf_reserve",
    "bpf_ringbuf_submit",
    "bpf_ringbuf_discard",
    "bpf_ringbuf_query",
    "bpf_csum_level",
    "bpf_skc_to_tcp6_sock",
    "bpf_skc_to_tcp_sock",
    "bpf_skc_to_tcp_timewait_sock",
    "bpf_skc_to_tcp_request_sock",
    "bpf_skc_to_udp6_sock",
    "bpf_get_task_stack",
    "bpf_load_hdr_opt",
    "bpf_store_hdr_opt",
    "bpf_reserve_hdr_opt",
    "bpf_inode_storage_get",
    "bpf_inode_storage_delete",
    "bpf_d_path",
    "bpf_copy_from_user",
    "bpf_snprintf_btf",
    "bpf_seq_printf_btf",
    "bpf_skb_cgroup_classid",
    "bpf_redirect_neigh",
    "bpf_per_cpu_ptr",
    "bpf_this_cpu_ptr",
    "bpf_redirect_peer",
    "bpf_task_storage_get",
    "bpf_task_storage_delete",
    "bpf_get_current_task_btf",
    "bpf_bprm_opts_set",
    "bpf_ktime_get_coarse_ns",
    "bpf_ima_inode_hash",
    "bpf_sock_from_file",
    "bpf_check_mtu",
    "bpf_for_each_map_elem",
    "bpf_snprintf",
    "bpf_sys_bpf",
    "bpf_btf_find_by_name_kind",
    "bpf_sys_close",
    "bpf_timer_init",
    "bpf_timer_set_callback",
    "bpf_timer_start",
    "bpf_timer_cancel",
    "bpf_get_func_ip",
    "bpf_get_attach_cookie",
    "bpf_task_pt_regs",
    "bpf_get_branch_snapshot",
    "bpf_trace_vprintk",
    "bpf_skc_to_unix_sock",
    "bpf_kallsyms_lookup_name",
    "bpf_find_vma",
    "bpf_loop",
    "bpf_strncmp",
    "bpf_get_func_arg",
    "bpf_get_func_ret",
    "bpf_get_func_arg_cnt",
    "bpf_get_retval",
    "bpf_set_retval",
    "bpf_xdp_get_buff_len",
    "bpf_xdp_load_bytes",
    "bpf_xdp_store_bytes",
    "bpf_copy_from_user_task",
    "bpf_skb_set_tstamp",
    "bpf_ima_file_hash",
    "bpf_kptr_xchg",
    "bpf_map_lookup_percpu_elem",
    "bpf_skc_to_mptcp_sock",
    "bpf_dynptr_from_mem",
    "bpf_ringbuf_reserve_dynptr",
    "bpf_ringbuf_submit_dynptr",
    "bpf_ringbuf_discard_dynptr",
    "bpf_dynptr_read",
    "bpf_dynptr_write",
    "bpf_dynptr_data",
    "bpf_tcp_raw_gen_syncookie_ipv4",
    "bpf_tcp_raw_gen_syncookie_ipv6",
    "bpf_tcp_raw_check_syncookie_ipv4",
    "bpf_tcp_raw_check_syncookie_ipv6",
    "bpf_ktime_get_tai_ns",
    "bpf_user_ringbuf_drain",
    "bpf_cgrp_storage_get",
    "bpf_cgrp_storage_delete",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_names() {
        let cases = [
            (helper::MAP_LOOKUP_ELEM, "bpf_map_lookup_elem"),
            (helper::MAP_UPDATE_ELEM, "bpf_map_update_elem"),
            (helper::MAP_DELETE_ELEM, "bpf_map_delete_elem"),
            (helper::PROBE_READ, "bpf_probe_read"),
            (helper::KTIME_GET_NS, "bpf_ktime_get_ns"),
            (helper::TRACE_PRINTK, "bpf_trace_printk"),
            (helper::SEQ_PRINTF, "bpf_seq_printf"),
            (helper::GET_PRANDOM_U32, "bpf_get_prandom_u32"),
            (helper::GET_SMP_PROCESSOR_ID, "bpf_get_smp_processor_id"),
            (helper::GET_CURRENT_PID_TGID, "bpf_get_current_pid_tgid"),
            (helper::GET_CURRENT_UID_GID, "bpf_get_current_uid_gid"),
            (helper::GET_CURRENT_COMM, "bpf_get_current_comm"),
            (helper::PERF_EVENT_OUTPUT, "bpf_perf_event_output"),
            (helper::GET_STACKID, "bpf_get_stackid"),
            (helper::GET_CURRENT_TASK, "bpf_get_current_task"),
            (helper::PROBE_READ_STR, "bpf_probe_read_str"),
            (helper::PROBE_READ_USER, "bpf_probe_read_user"),
            (helper::PROBE_READ_KERNEL, "bpf_probe_read_kernel"),
            (helper::PROBE_READ_USER_STR, "bpf_probe_read_user_str"),
            (helper::PROBE_READ_KERNEL_STR, "bpf_probe_read_kernel_str"),
            (helper::GET_NS_CURRENT_PID_TGID, "bpf_get_ns_current_pid_tgid"),
            (helper::KTIME_GET_BOOT_NS, "bpf_ktime_get_boot_ns"),
            (helper::KTIME_GET_TAI_NS, "bpf_ktime_get_tai_ns"),
            (helper::RINGBUF_OUTPUT, "bpf_ringbuf_output"),
            (helper::RINGBUF_RESERVE, "bpf_ringbuf_reserve"),
            (helper::RINGBUF_SUBMIT, "bpf_ringbuf_submit"),
            (helper::RINGBUF_DISCARD, "bpf_ringbuf_discard"),
            (helper::PER_CPU_PTR, "bpf_per_cpu_ptr"),
            (helper::THIS_CPU_PTR, "bpf_this_cpu_ptr"),
            (helper::GET_CURRENT_TASK_BTF, "bpf_get_current_task_btf"),
            (helper::GET_FUNC_IP, "bpf_get_func_ip"),
            (helper::GET_ATTACH_COOKIE, "bpf_get_attach_cookie"),
            (helper::GET_FUNC_ARG, "bpf_get_func_arg"),
            (helper::GET_FUNC_RET, "bpf_get_func_ret"),
            (helper::MAP_LOOKUP_PERCPU_ELEM, "bpf_map_lookup_percpu_elem"),
        ];
        for (id, name) in cases {
            assert_eq!(helper_name(id), Some(name), "id {id}");
        }
    }

    #[test]
    fn table_edges() {
        assert_eq!(NAMES.len(), 212);
        assert_eq!(helper_name(0), None);
        assert_eq!(helper_name(211), Some("bpf_cgrp_storage_delete"));
        assert_eq!(helper_name(212), None);
        assert_eq!(helper_name(u32::MAX), None);
    }
}
