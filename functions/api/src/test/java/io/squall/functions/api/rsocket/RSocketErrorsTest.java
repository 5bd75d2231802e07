package io.squall.functions.api.rsocket;

import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.exceptions.CustomRSocketException;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.StageException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RSocketErrorsTest {

    @Test
    void everyStageErrorSurvivesTheRoundTrip() {
        for (ErrorCode code : ErrorCode.values()) {
            CustomRSocketException wire = RSocketErrors.toRSocket(new StageException(code, "why " + code));
            assertThat(wire.errorCode()).isEqualTo(code.rsocketCode());
            StageException back = RSocketErrors.fromRSocket(wire);
            assertThat(back.code()).isEqualTo(code);
            assertThat(back.getMessage()).isEqualTo("why " + code);
        }
    }

    @Test
    void foreignErrorsMapToInternalOrUnavailable() {
        assertThat(RSocketErrors.toRSocket(new IllegalStateException("boom")).errorCode())
                .isEqualTo(ErrorCode.INTERNAL.rsocketCode());
        assertThat(RSocketErrors.fromRSocket(new ApplicationErrorException("x")).code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(RSocketErrors.fromRSocket(new ConnectionErrorException("gone")).code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(RSocketErrors.fromRSocket(new CustomRSocketException(0x7000, "other")).code()).isEqualTo(ErrorCode.INTERNAL);
    }
}
