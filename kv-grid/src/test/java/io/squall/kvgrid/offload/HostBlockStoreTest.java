package io.squall.kvgrid.offload;

class HostBlockStoreTest extends BlockStoreContract {

    @Override
    BlockStore newStore(int blocks) {
        return new HostBlockStore(blocks * BLOCK_BYTES + BLOCK_BYTES - 1, BLOCK_BYTES);
    }
}
