//! Maps against the real kernel: every operation the runtime uses.

mod common;

use sonde_kernel::error::KernelError;
use sonde_kernel::object::map::{Map, MapSpec, MapType, BPF_ANY, BPF_EXIST, BPF_NOEXIST};

fn hash(map_type: MapType, name: &str) -> Map {
    Map::create(&MapSpec { map_type, key_size: 4, value_size: 8, max_entries: 64, name, flags: 0 })
        .unwrap()
}

#[test]
fn hash_map_update_lookup_delete_keys_clear() {
    if common::skip_unless_root() {
        return;
    }
    let m = hash(MapType::Hash, "test_hash");
    for k in 0u32..10 {
        m.update(&k.to_le_bytes(), &(k as u64 * 100).to_le_bytes(), BPF_ANY).unwrap();
    }
    assert_eq!(m.lookup(&7u32.to_le_bytes()).unwrap(), Some(700u64.to_le_bytes().to_vec()));
    assert_eq!(m.lookup(&70u32.to_le_bytes()).unwrap(), None);

    let mut keys: Vec<u32> =
        m.keys().unwrap().iter().map(|k| u32::from_le_bytes(k[..].try_into().unwrap())).collect();
    keys.sort();
    assert_eq!(keys, (0..10).collect::<Vec<_>>());

    assert!(m.delete(&3u32.to_le_bytes()).unwrap());
    assert!(!m.delete(&3u32.to_le_bytes()).unwrap());
    assert_eq!(m.keys().unwrap().len(), 9);

    // NOEXIST refuses an existing key; EXIST refuses a missing one.
    let err = m.update(&1u32.to_le_bytes(), &[0; 8], BPF_NOEXIST).unwrap_err();
    assert_eq!(err.errno(), Some(libc::EEXIST));
    let err = m.update(&3u32.to_le_bytes(), &[0; 8], BPF_EXIST).unwrap_err();
    assert_eq!(err.errno(), Some(libc::ENOENT));

    m.clear().unwrap();
    assert!(m.keys().unwrap().is_empty());
}

#[test]
fn hash_map_filled_whole_in_one_call() {
    if common::skip_unless_root() {
        return;
    }
    let m = hash(MapType::Hash, "test_fill");
    let entries: Vec<(Vec<u8>, Vec<u8>)> = (0u32..40)
        .map(|k| (k.to_le_bytes().to_vec(), (k as u64 * 3).to_le_bytes().to_vec()))
        .collect();
    m.update_all(&entries).unwrap();
    m.update_all(&[]).unwrap();
    let mut all = m.entries().unwrap();
    all.sort();
    let got: Vec<(Vec<u8>, Vec<u8>)> = all.into_iter().map(|(k, mut v)| (k, v.remove(0))).collect();
    assert_eq!(got.len(), 40);
    for (k, v) in &entries {
        assert!(got.contains(&(k.clone(), v.clone())), "key {k:?}");
    }
    // A value of the wrong size is refused, as one update would be.
    assert!(m.update_all(&[(1u32.to_le_bytes().to_vec(), vec![0; 4])]).is_err());
}

#[test]
fn percpu_hash_lookup_returns_one_value_per_possible_cpu() {
    if common::skip_unless_root() {
        return;
    }
    let ncpus = sonde_kernel::host::cpus::possible_cpus().unwrap().len();
    let m = Map::create(&MapSpec {
        map_type: MapType::PerCpuHash,
        key_size: 4,
        value_size: 4, // padded to 8 per CPU by the kernel
        max_entries: 8,
        name: "test_percpu",
        flags: 0,
    })
    .unwrap();
    assert_eq!(m.value_len(), 8 * ncpus);
    let mut value = Vec::new();
    for cpu in 0..ncpus as u32 {
        value.extend((cpu + 10).to_le_bytes());
        value.extend([0u8; 4]);
    }
    m.update(&1u32.to_le_bytes(), &value, BPF_ANY).unwrap();
    let per_cpu = m.lookup_percpu(&1u32.to_le_bytes()).unwrap().unwrap();
    assert_eq!(per_cpu.len(), ncpus);
    for (cpu, v) in per_cpu.iter().enumerate() {
        assert_eq!(v, &(cpu as u32 + 10).to_le_bytes());
    }
    assert_eq!(m.lookup_percpu(&2u32.to_le_bytes()).unwrap(), None);
}

#[test]
fn array_clear_zeroes_every_slot() {
    if common::skip_unless_root() {
        return;
    }
    let m = Map::create(&MapSpec {
        map_type: MapType::PerCpuArray,
        key_size: 4,
        value_size: 8,
        max_entries: 3,
        name: "test_arr",
        flags: 0,
    })
    .unwrap();
    let ones = vec![1u8; m.value_len()];
    m.update(&2u32.to_le_bytes(), &ones, BPF_ANY).unwrap();
    m.clear().unwrap();
    let v = m.lookup_percpu(&2u32.to_le_bytes()).unwrap().unwrap();
    assert!(v.iter().all(|slot| slot == &[0u8; 8]));
    assert_eq!(m.keys().unwrap().len(), 3, "arrays always hold max_entries keys");
}

#[test]
fn wrong_sized_keys_are_refused_before_the_kernel_sees_them() {
    if common::skip_unless_root() {
        return;
    }
    let m = hash(MapType::Hash, "test_sizes");
    assert!(matches!(
        m.lookup(&[1, 2]),
        Err(KernelError::Size { what: "key", expected: 4, got: 2, .. })
    ));
    assert!(matches!(
        m.update(&[0; 4], &[0; 4], BPF_ANY),
        Err(KernelError::Size { what: "value", .. })
    ));
}

#[test]
fn names_the_kernel_would_refuse_are_sanitized() {
    if common::skip_unless_root() {
        return;
    }
    hash(MapType::Hash, "@counts:by-comm/and a very long tail");
}

#[test]
fn ringbuf_is_supported_here() {
    if common::skip_unless_root() {
        return;
    }
    assert!(sonde_kernel::features::ringbuf_supported());
}

#[test]
fn entries_read_every_element_whole_by_batches() {
    if common::skip_unless_root() {
        return;
    }
    let ncpus = sonde_kernel::host::cpus::possible_cpus().unwrap().len();
    // More elements than one batch (4096), so the position is carried from call to call.
    for map_type in [MapType::PerCpuHash, MapType::LruPerCpuHash, MapType::Hash] {
        let m = Map::create(&MapSpec {
            map_type,
            key_size: 4,
            value_size: 4,
            max_entries: 10_000,
            name: "test_entries",
            flags: 0,
        })
        .unwrap();
        assert!(m.entries().unwrap().is_empty(), "{map_type:?}");
        let n = match map_type {
            // An LRU map may evict before it is full: fill a third.
            MapType::LruPerCpuHash => 3_000u32,
            _ => 9_000,
        };
        let per_cpu = if map_type == MapType::Hash { 1 } else { ncpus };
        for k in 0..n {
            // Each CPU's 4 bytes, padded to 8 in a per-CPU map.
            let slot = m.value_len() / per_cpu;
            let value: Vec<u8> = (0..per_cpu as u32)
                .flat_map(|cpu| (k + cpu).to_le_bytes().into_iter().chain([0; 4]).take(slot))
                .collect();
            m.update(&k.to_le_bytes(), &value, BPF_ANY).unwrap();
        }
        let mut got = m.entries().unwrap();
        got.sort_by_key(|(k, _)| u32::from_le_bytes(k[..].try_into().unwrap()));
        assert_eq!(got.len(), n as usize, "{map_type:?}");
        for (k, (key, values)) in got.iter().enumerate() {
            assert_eq!(key, &(k as u32).to_le_bytes(), "{map_type:?}");
            assert_eq!(values.len(), per_cpu, "{map_type:?}");
            for (cpu, v) in values.iter().enumerate() {
                assert_eq!(v, &(k as u32 + cpu as u32).to_le_bytes(), "{map_type:?}");
            }
        }
    }
}
