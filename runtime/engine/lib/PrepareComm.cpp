//===- PrepareComm.cpp - Communication instructions -----------------------===//
//
// Halo exchanges and collectives are emitted by the partitioner (issue 4);
// until it lands the CPU backend reports them as unimplemented at prepare
// time rather than running a partial version.
//
//===----------------------------------------------------------------------===//

#include "Prepare.h"

namespace shardrt::exec {

StatusOr<RunFn> prepareComm(const fb::Instruction &inst,
                            const PrepareContext &) {
  switch (inst.opcode()) {
  case fb::Opcode::HaloExchange:
  case fb::Opcode::SendRecv:
  case fb::Opcode::AllReduce:
  case fb::Opcode::AllGather:
  case fb::Opcode::ReduceScatter:
  case fb::Opcode::AllToAll:
  case fb::Opcode::Broadcast:
  case fb::Opcode::Barrier:
  case fb::Opcode::Wait:
    return Status::unimplemented(
        std::string("the CPU backend does not run ") +
        fb::EnumNameOpcode(inst.opcode()) + " instructions yet");
  default:
    return notMine();
  }
}

} // namespace shardrt::exec
