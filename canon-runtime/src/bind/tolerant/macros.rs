//! The method lists the adapter's wrappers and the key readers forward,
//! written once (declared first, so every file of the pass may use them).

/// Passes `$forward!` the tokens `$head`, then every method of serde's
/// `Deserializer` but `deserialize_any`, `deserialize_seq`,
/// `deserialize_ignored_any` and `deserialize_enum` (which a wrapper either
/// treats apart or lists in `$head`): one list for every wrapper that
/// forwards them.
macro_rules! with_deserialize_methods {
    ($forward:ident! { $($head:tt)* }) => {
        $forward! { $($head)*
            deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
            deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16();
            deserialize_u32(); deserialize_u64(); deserialize_u128(); deserialize_f32();
            deserialize_f64(); deserialize_char(); deserialize_str(); deserialize_string();
            deserialize_bytes(); deserialize_byte_buf(); deserialize_option(); deserialize_unit();
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_map();
            deserialize_struct(name: &'static str, fields: &'static [&'static str]);
            deserialize_identifier();
        }
    };
}

/// Visitor methods that hand the value to the inner visitor unchanged.
macro_rules! forward_visit {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<E: de::Error>(self, $($arg: $ty),*) -> Result<Self::Value, E> {
            self.inner.$method($($arg),*)
        }
    )*};
}
