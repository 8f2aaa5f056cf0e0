export { type ApiDefinition, defineApi, isFlexible, type RequestOf, type ResponseOf } from "./api.js";
export {
  type ArrayType,
  array,
  bool,
  bytes,
  float64,
  int8,
  int16,
  int32,
  int64,
  records,
  string,
  uint16,
  uint32,
  uuid,
  uuidBytes,
  ZERO_UUID,
} from "./primitives.js";
export {
  decodeStruct,
  encodeStruct,
  type Field,
  field,
  type NullableStructType,
  nullableField,
  nullableStruct,
  type RawTaggedField,
  type StructExtras,
  type StructType,
  type StructValue,
  struct,
} from "./struct.js";
export { inRange, type VersionRange, versionRange } from "./versions.js";
export { type WireContext, type WireType, wireEquals } from "./wire-type.js";
